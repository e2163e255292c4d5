using System.Diagnostics;
using PerfLab.Experiments.Definitions;
using PerfLab.Results;

namespace PerfLab.Experiments.Running.Blocks;

/// <summary>
/// Runs a run's <see cref="AlternatingBlock"/>s: every variant's SUT started and confirmed (or one SUT for all, in
/// process), then measured taking turns; a variant whose SUT did not start is recorded failed and the others go on.
/// A traced block (the first) whose experiment is sure to run another leaves its traces to the next block, which takes
/// them while its own SUTs start and warm up, and measures only once they are taken and their SUTs stopped
/// (<see cref="LeftTraces"/>): nothing measured overlaps a trace either way.
/// </summary>
internal sealed class AlternatingBlocks(ConditionedStarts starts, Measurements measurements, IRunObserver observer,
    Func<ExperimentDefinition, ProfileDefinition> profileOf) : IAsyncDisposable
{
    private InProcessBlock InProcess => new(starts, measurements, observer);

    // The last block's traces and SUTs, when it left them to the next block.
    private LeftTraces? _left;

    /// <summary>
    /// One block whose runs are numbered from <paramref name="first"/>; its records go to the block's experiment.
    /// </summary>
    /// <returns>Why the whole run must stop (Ctrl+C, the database went down), or null to go on.</returns>
    public async Task<RunHalt?> RunAsync(BlockRun block, int first, CancellationToken ct)
    {
        var clock = Stopwatch.StartNew();
        var positions = block.Order.Select((v, i) => block.Position(v, first + i, first)).ToList();
        var started = new StartedBlock(block.Order.Count);
        var previous = TakeLeft()?.RunAsync(ct) ?? Task.CompletedTask;
        LeftTraces? left = null;
        try
        {
            var starting = block.Experiment.Method.OneProcess
                ? InProcess.StartAsync(block, first, positions, started, ct)
                : StartParticipantsAsync(block, first, positions, started, ct);
            if (!await starting)
            {
                return RunHalt.Interrupted;
            }
            var profile = InProcessBlock.Profile(block.Experiment, profileOf(block.Experiment));
            var alternating = new AlternatingBlock(block.Experiment, profile, observer);
            var measured = started.Participants.Count > 0 ? await alternating.RunAsync(started.Participants, ct, previous) : [];
            started.Fill(measured);
            if (LeftTraces.Applies(block, profile, started.Participants, ct))
            {
                left = new LeftTraces(started, measured);
            }
            else
            {
                await AlternatingBlock.TraceAsync(started.Participants, measured, ct);
            }
        }
        finally
        {
            await previous;
            if (left is null)
            {
                await started.DisposeAsync();
            }
            _left = left;
        }
        for (var i = 0; i < block.Order.Count; i++)
        {
            block.Plan.Observe(block.Experiment.Name, block.Number, clock.Elapsed.TotalSeconds / block.Order.Count);
            block.Progress.Runs.Add(started.Records[i]!);
            observer.RunFinished(positions[i], started.Records[i]!);
        }
        return ct.IsCancellationRequested
            ? RunHalt.Interrupted
            : started.Records.Select(r => RunHalt.After(r!)).FirstOrDefault(h => h is not null);
    }

    /// <summary>
    /// The traces a block left, taken now with nothing beside them (before a block that does not take them, or at the end).
    /// </summary>
    public Task FinishLeftAsync(CancellationToken ct) => TakeLeft()?.RunAsync(ct) ?? Task.CompletedTask;

    private LeftTraces? TakeLeft()
    {
        var left = _left;
        _left = null;
        return left;
    }

    /// <summary>Left traces not taken (a fault ended the run): their SUTs stopped.</summary>
    public async ValueTask DisposeAsync()
    {
        if (TakeLeft() is { } left)
        {
            await left.DisposeAsync();
        }
    }

    /// <summary>
    /// Starts every variant of the block under its conditions; false when Ctrl+C came first. The database paths are opened
    /// (and measured) one after the other on a quiet machine; then the SUTs start all at once, since nothing is measured
    /// while they start and each spends a couple of seconds compiling its start-up code.
    /// </summary>
    private async Task<bool> StartParticipantsAsync(BlockRun block, int first, IReadOnlyList<RunPosition> positions,
        StartedBlock started, CancellationToken ct)
    {
        var experiment = block.Experiment;
        var conditioned = new List<ConditionedStarts.Conditioned>(block.Order.Count);
        for (var i = 0; i < block.Order.Count; i++)
        {
            if (ct.IsCancellationRequested)
            {
                return false;
            }
            observer.RunStarting(positions[i]);
            var id = new RunIdentity(block.Order[i].Name, block.Number, first + i, DateTimeOffset.UtcNow);
            var one = await starts.OpenConditionsAsync(experiment, block.Order[i], id, ct);
            if (one.Path is not null)
            {
                started.Paths.Add(one.Path);
            }
            conditioned.Add(one);
        }
        var sutStarts = await Task.WhenAll(conditioned.Select(c =>
            c.Failed is null ? starts.StartSutAsync(experiment, c, block.Number, ct) : Task.FromResult(c.AsStart())));
        for (var i = 0; i < sutStarts.Length; i++)
        {
            if (sutStarts[i].Failed is { } failed)
            {
                started.Records[i] = failed;
                continue;
            }
            var measurement = measurements.ThroughLoadEngine(block, sutStarts[i].Variant);
            started.Participants.Add(new BlockParticipant(sutStarts[i].Variant, conditioned[i].Id, sutStarts[i].Sut!,
                sutStarts[i].Info, measurement)
            {
                DatabasePath = sutStarts[i].Path?.Stats,
                Effect = sutStarts[i].Effect,
            });
        }
        return !ct.IsCancellationRequested;
    }
}

/// <summary>
/// A traced block's traces, left to the next block of its experiment with the SUTs they need. Tracing a block's
/// variants one after the other took 22 s of gc's 137 s while nothing was measured (issue 46's duty cycle,
/// docs/benchmarks/duty-cycle.md); beside the next block's starts and warm-ups, which measure nothing either, that time
/// is shared. The traces then share the cores with those starts: their CPU breakdown is each process's own
/// (kernel-charged), their per-request figures are read from their own requests.
/// </summary>
internal sealed class LeftTraces(StartedBlock block, IReadOnlyList<RunRecord> measured) : IAsyncDisposable
{
    private int _disposed;

    /// <summary>
    /// Whether an experiment's first block leaves its traces to the second under this profile: its blocks alternate,
    /// it has a second (below its minimum the stopping rule always goes on), and its variants warm up at once. A runtime
    /// that tiers warms up in pulses whose pauses give its tier-1 worker the cores, which a trace's load would take.
    /// </summary>
    public static bool Expected(ExperimentDefinition experiment, ProfileDefinition profile, int minBlocks) =>
        minBlocks > 1 && (experiment.Method.OneProcess || AlternatingBlock.Applies(experiment, profile))
            && AlternatingBlock.WarmsUpAtOnce(profile, experiment.Variants);

    /// <summary>Whether this block's traces wait for the next block: <see cref="Expected"/>, it is the first, and it traces.</summary>
    public static bool Applies(BlockRun block, ProfileDefinition profile, IReadOnlyList<BlockParticipant> participants,
        CancellationToken ct) =>
        !ct.IsCancellationRequested && block.Number < block.Progress.Rule.MinBlocks
            && Expected(block.Experiment, profile, block.Progress.Rule.MinBlocks)
            && participants.Any(p => p.Measurement.Capture is not null);

    /// <summary>The traces taken (each as a block's own would be), then the block's SUTs and paths stopped.</summary>
    public async Task RunAsync(CancellationToken ct)
    {
        try
        {
            await AlternatingBlock.TraceAsync(block.Participants, measured, ct);
        }
        finally
        {
            await DisposeAsync();
        }
    }

    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) == 0)
        {
            await block.DisposeAsync();
        }
    }
}
