using PerfLab.Apps;
using PerfLab.Common;
using PerfLab.Counters;
using PerfLab.Database;
using PerfLab.Experiments.Analysis;
using PerfLab.Experiments.Definitions;
using PerfLab.Hosts;
using PerfLab.Load;
using PerfLab.Results;
using PerfLab.Experiments.Running.Warmup;

namespace PerfLab.Experiments.Running.Measuring;

/// <summary>The load engine's scenarios against the app, with the runtime's counters read alongside.</summary>
/// <param name="connectionString">The built-in SUT's database, asked whether it
/// went down when most requests answer 503; null for an app of one's own.</param>
public sealed class LoadMeasurement(ExperimentDefinition experiment, VariantDefinition variant, ProfileDefinition profile,
    string? connectionString) : IMeasurement
{
    /// <summary>When set, a successful run is followed by a traced stretch whose evidence goes to <see cref="Traced"/>.</summary>
    public EvidenceCapture? Capture { get; init; }
    public Action<TracedRun>? Traced { get; init; }
    /// <summary>Told of a trace that failed, so the results say why beside the missing evidence.</summary>
    public Action<FailedTrace>? TraceFailed { get; init; }
    /// <summary>Where its lines of progress go (the tracing after its window).</summary>
    public IProgress<string>? Progress { get; init; }

    /// <summary>Where the load is sent from: this process, or the hosts file's generators (their figures merged).</summary>
    public LoadSource Load { get; init; } = LoadSource.Here;

    /// <summary>The database's backends read on its host by the db role; null: found on this machine, if there.</summary>
    public IBackendsCpu? DatabaseBackends { get; init; }

    /// <summary>The database's role on a db host: its end stops the window, its loss fails the run naming the host.</summary>
    public DatabaseWatch? Database { get; init; }

    private static readonly string Unavailable = ErrorCounts.HttpKind(503);

    public async Task<RunRecord> MeasureAsync(IRunningApp sut, RunIdentity id, IReadOnlyDictionary<string, string> info,
        CancellationToken ct)
    {
        RunRecord Failed(FailureKind kind, string reason) =>
            RunRecordBuilder.Failed(id, new RunFailure(kind, reason, sut.TailOfLog(), info));

        // A steady warm-up also waits for the SUT's tiering to settle: throughput can plateau while tiering goes on.
        await using var tiering = await TieringWatch.StartAsync(sut, ct);
        var meter = await CostMeterAsync(sut, ct);
        // One continuous window: a starved variant's is held open for a cycle (WindowCycle), so that it measures the
        // bursts it answers in rather than the gap between two. Slots keep their equal turns (AlternatingBlock).
        await using var path = await ClientPath.OpenAsync(ScenarioPlans.BuildPlan(experiment, variant, profile, sut) with
        {
            TargetSettled = () => tiering.Settled,
            Probe = meter,
            WindowHoldsACycle = true,
        }, ct);
        var plan = path.Plan;
        RemoteLoadResult sent;
        CounterRecording? recording;
        try
        {
            // A db host lost mid-window ends it there: the run fails naming it (RecordAsync), nothing more is measured.
            using var window = Database is { } database ? CancellationTokenSource.CreateLinkedTokenSource(ct, database.Ended) : null;
            (sent, recording) = await CounterSession.WithCountersAsync(sut, () => Load.SendAsync(plan, window?.Token ?? ct), ct);
        }
        catch (PerfLabException ex)
        {
            return Failed(FailureKind.LoadFailed, $"the load could not run: {ex.Message}");
        }
        catch (OperationCanceledException) when (!ct.IsCancellationRequested && Database?.Lost is { } lost)
        {
            // Lost in its warm-up: nothing was measured; the run fails naming the db host, as when lost in the window.
            return Failed(FailureKind.DatabaseDown, DatabaseLostReason(lost));
        }

        var load = sent.Merged;
        if (load.MeasuredSeconds - profile.Duration.TotalSeconds >= 1 && !load.Incomplete)
        {
            var asked = profile.Duration.TotalSeconds;
            Progress?.Report(string.Create(System.Globalization.CultureInfo.InvariantCulture,
                $"measured window held {load.MeasuredSeconds:0.#} s (asked: {asked:0.#} s) for as many answers as users"));
        }
        var record = path.Recorded(await RecordAsync(sut, id, info, (load, recording), ct));
        record = RunRecordBuilder.WithGenerators(record, sent.Generators) with
        {
            Tiering = tiering.Summarize(load.MeasuredFromUtc, [(load.MeasuredFromUtc, load.EndedUtc)]),
        };
        record = WithCost(record, [meter.Take(load.Scenarios.Sum(s => s.Requests))]);
        await TraceAsync(sut, id, record, ct);
        return record;
    }

    /// <summary>
    /// The run's record from what the load and the counters measured, failed when the SUT crashed, its db host was lost,
    /// the load stopped early, Ctrl+C came, no request completed in the window, or the database went down under it.
    /// </summary>
    public async Task<RunRecord> RecordAsync(IRunningApp sut, RunIdentity id, IReadOnlyDictionary<string, string> info,
        (LoadResult Load, CounterRecording? Recording) measured, CancellationToken ct)
    {
        var (load, recording) = measured;
        RunRecord Failed(FailureKind kind, string reason) =>
            RunRecordBuilder.Failed(id, new RunFailure(kind, reason, sut.TailOfLog(), info));

        if (sut.HasExited)
        {
            return Failed(FailureKind.SutCrashed,
                $"the {(connectionString is null ? "app" : "SUT")} crashed during the run (exit code {sut.ExitCode})");
        }
        if (Database?.Lost is { } lost)
        {
            // Its requests may all have been answered (no query in them), but the database the run stands on is gone.
            return RunRecordBuilder.MarkFailed(RunRecordBuilder.FromLoad(id, info, load, recording), FailureKind.DatabaseDown,
                DatabaseLostReason(lost));
        }
        if (load.Incomplete && !ct.IsCancellationRequested)
        {
            // What was measured until then is kept (a generator that died, the others' figures), the run failed.
            return RunRecordBuilder.MarkFailed(RunRecordBuilder.FromLoad(id, info, load, recording), FailureKind.LoadStoppedEarly,
                $"the load stopped early: {load.IncompleteReason}") with { LogTail = sut.TailOfLog() };
        }
        var record = RunRecordBuilder.FromLoad(id, info, load, recording);
        if (ct.IsCancellationRequested)
        {
            return RunRecordBuilder.MarkFailed(record, FailureKind.Interrupted, "interrupted (Ctrl+C): partial figures");
        }
        var requests = record.Scenarios.Sum(s => s.Requests);
        if (requests == 0)
        {
            // No rate to pair: a ratio against zero has no logarithm, and the block would make the comparison NaN.
            return RunRecordBuilder.MarkFailed(record, FailureKind.NothingCompleted,
                $"no request completed in its {load.MeasuredSeconds:0.#} s measured window: the app answered nothing in time; "
                    + "lengthen --duration (or the profile's), or read its log") with { LogTail = sut.TailOfLog() };
        }
        var unavailable = record.Scenarios.Sum(s => s.ErrorsByKind.GetValueOrDefault(Unavailable));
        if (connectionString is not null && unavailable * 2 > requests
            && !await PostgresConnections.AcceptsConnectionsAsync(connectionString, ct))
        {
            return RunRecordBuilder.MarkFailed(record, FailureKind.DatabaseDown,
                $"the database stopped: {unavailable} of {requests} requests answered 503 and the database does not accept connections; "
                    + "the remaining runs were skipped");
        }
        return record;
    }

    private static string DatabaseLostReason(string lost) => $"the database was lost: {lost}; the remaining runs were skipped";

    /// <summary>
    /// The meter of the app's CPU per request: its own process, and the PostgreSQL backends serving it when the
    /// built-in SUT's database runs on this machine (looked up once) or on a db host whose role reads them there
    /// (<see cref="DatabaseBackends"/>); a user's app is metered alone, its database being its own business.
    /// </summary>
    public async Task<CostMeter> CostMeterAsync(IRunningApp sut, CancellationToken ct)
    {
        // The cores' speed is this machine's: sampled for an app that runs here.
        var speed = sut.Pid != IRunningApp.Elsewhere ? CoreSpeed.Shared : null;
        if (connectionString is null)
        {
            return new CostMeter(sut.CpuNanoseconds, null, speed);
        }
        if (DatabaseBackends is { } remote)
        {
            return new CostMeter(sut.CpuNanoseconds, remote);
        }
        if (sut.Pid != IRunningApp.Elsewhere && !_databaseLooked && !ct.IsCancellationRequested)
        {
            try
            {
                _database = await PostgresBackends.FindAsync(connectionString, ct);
                _databaseLooked = true;
            }
            catch (OperationCanceledException) when (ct.IsCancellationRequested)
            {
                // Ctrl+C: the run ends as interrupted and measures nothing more; its meter needs no database.
            }
        }
        // An app on another host with a server this machine cannot see (a connection string's): the app alone.
        return new CostMeter(sut.CpuNanoseconds, _database is { } local ? new LocalBackendsCpu(local, sut.Pid) : null, speed);
    }

    private LocalPostgres? _database;
    private bool _databaseLooked;

    /// <summary>The record with its cost over the given windows (null ones were not measured: the app was gone at an edge).</summary>
    public static RunRecord WithCost(RunRecord record, IEnumerable<CpuWindow?> windows)
    {
        var measured = windows.OfType<CpuWindow>().ToList();
        return measured.Count == 0 ? record : record with { Cost = new CpuCost(measured) };
    }

    /// <summary>The traced stretch after the window; a trace that fails is reported and costs the run nothing.</summary>
    public async Task TraceAsync(IRunningApp sut, RunIdentity id, RunRecord record, CancellationToken ct)
    {
        if (Capture is null || record.Status != RunStatus.Ok || ct.IsCancellationRequested)
        {
            return;
        }
        try
        {
            Progress?.Report($"tracing {variant.Name} for {EvidenceCapture.Length.TotalSeconds:F0} s after its window...");
            var traced = await Capture.CaptureAsync(experiment, variant, sut, record, ct);
            Progress?.Report(EvidenceCapture.Describe(traced));
            Traced?.Invoke(traced);
        }
        catch (OperationCanceledException)
        {
        }
        catch (Exception ex) when (ex is PerfLabException or IOException or InvalidOperationException or UnauthorizedAccessException)
        {
            var failed = new FailedTrace(variant.Name, ex.Message.Split('\n')[0]);
            Progress?.Report(failed.Note);
            TraceFailed?.Invoke(failed);
        }
    }
}
