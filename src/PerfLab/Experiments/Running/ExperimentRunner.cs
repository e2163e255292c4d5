using System.Diagnostics;
using PerfLab.Experiments.Analysis;
using PerfLab.Experiments.Definitions;
using PerfLab.Results;

namespace PerfLab.Experiments.Running;

/// <summary>
/// Runs experiments in blocks: each block runs every variant once (rotated, see <see cref="RunPlan"/>), each in a
/// fresh process of the app under test (the built-in SUT or the experiment's own app, see <see cref="SutSession"/>)
/// whose variant must be seen in effect, warmed up, measured and watched over EventPipe; the
/// <see cref="StoppingRule"/> says when an experiment has enough blocks. Failures of one run are recorded and the
/// rest goes on; Ctrl+C, or a database that stopped, ends the run with what was measured.
/// </summary>
public sealed class ExperimentRunner(RunRequest request, IRunObserver observer)
{
    private const string Interrupted = "interrupted (Ctrl+C)";

    private readonly SutSession _sessions = new(request, observer);

    public async Task<RunResults> RunAsync(NoiseFloors noise, CancellationToken ct)
    {
        var settings = new AnalysisSettings(request.Profile, request.Repeat, request.Aa, noise);
        var started = DateTimeOffset.UtcNow;
        var repetitions = request.Repeat ?? request.Experiments.Select(e => e.Profiles[request.Profile].Repeat).DefaultIfEmpty(0).Max();
        // Started now and awaited at the end, so that an interrupted run does not wait for git and dotnet after Ctrl+C.
        var provenance = RunEnvironment.DescribeAsync(request.Profile, repetitions, request.Aa, request.Layout, request.DatabaseDescription, ct);
        var plan = new RunPlan(request.Experiments.Select(e => new PlannedExperiment(e.Name,
            RunPlan.PlannedRunSeconds(e, e.Profiles[request.Profile]), e.VariantsToRun(request.Aa).Count, Rule(e).MinBlocks)));
        var budget = request.Budget is { } total
            ? new TimeBudget(total, plan.Experiments.Select(p => p.PlannedRunSeconds * p.Variants).ToList())
            : null;

        foreach (var experiment in request.Experiments)
        {
            var profile = experiment.Profiles[request.Profile];
            await _sessions.PrepareAsync(experiment, experiment.VariantsToRun(request.Aa).Select(profile.Apply).ToList(), ct);
        }
        if (request.Experiments.Count > 0 && !ct.IsCancellationRequested)
        {
            var first = request.Experiments[0];
            await _sessions.PrimeAsync(first, first.Profiles[request.Profile].Apply(RunPlan.Block(first.VariantsToRun(request.Aa), 1)[0]), ct);
        }

        var results = new List<ExperimentResult>();
        string? incomplete = null;
        for (var i = 0; i < request.Experiments.Count && incomplete is null; i++)
        {
            var clock = Stopwatch.StartNew();
            var (result, stop) = await RunExperimentAsync(request.Experiments[i], plan, budget?.AllowanceFor(i), settings, ct);
            budget?.Spend(clock.Elapsed);
            if (result is not null)
            {
                results.Add(result);
            }
            incomplete = stop;
        }

        return new RunResults
        {
            StartedAt = started,
            FinishedAt = DateTimeOffset.UtcNow,
            Profile = request.Profile,
            Provenance = await provenance,
            Experiments = results,
            Incomplete = incomplete is not null,
            IncompleteReason = incomplete,
            Notes = CeilingNotes.Of(results),
        };
    }

    private StoppingRule Rule(ExperimentDefinition experiment) =>
        StoppingRule.For(experiment.Profiles[request.Profile], request.Repeat, request.PrecisionPercent);

    /// <returns>The experiment's result (null when no run was made) and, when the whole run must stop, why.</returns>
    private async Task<(ExperimentResult? Result, string? Stop)> RunExperimentAsync(ExperimentDefinition experiment, RunPlan plan,
        TimeSpan? allowance, AnalysisSettings settings, CancellationToken ct)
    {
        var rule = Rule(experiment);
        var variants = experiment.VariantsToRun(request.Aa);
        var runs = new List<RunRecord>();
        var traced = new List<TracedRun>();
        var clock = Stopwatch.StartNew();
        string? stop = null;
        StopDecision decision = StopDecision.Continue;
        var blocks = 0;
        while (stop is null && !decision.Stop)
        {
            blocks++;
            stop = await RunBlockAsync(experiment, RunPlan.Block(variants, blocks), blocks, plan, runs, traced, ct);
            if (stop is not null)
            {
                break;
            }
            var widest = StoppingRule.WidestHalfWidth(ExperimentAnalyzer.Analyze(experiment, runs, settings).Comparisons);
            decision = rule.Decide(blocks, widest, allowance is not { } a || TimeBudget.HasRoomForBlock(a, clock.Elapsed, blocks));
            observer.BlockFinished(new BlockProgress(experiment.Name, blocks, widest, rule.PrecisionPercent, decision));
            if (!decision.Stop && blocks >= plan.BlocksOf(experiment.Name))
            {
                plan.AddBlock(experiment.Name);
            }
        }
        if (runs.Count == 0)
        {
            return (null, stop);
        }
        return (EvidenceFindings.Apply(ExperimentAnalyzer.Analyze(experiment, runs, settings), traced) with
        {
            Blocks = blocks,
            PrecisionTargetPercent = rule.PrecisionPercent,
            StopReason = decision.Reason ?? stop,
        }, stop);
    }

    /// <returns>Why the whole run must stop (Ctrl+C, the database went down), or null to go on.</returns>
    private async Task<string?> RunBlockAsync(ExperimentDefinition experiment, IReadOnlyList<VariantDefinition> order, int block,
        RunPlan plan, List<RunRecord> runs, List<TracedRun> traced, CancellationToken ct)
    {
        foreach (var variant in order)
        {
            if (ct.IsCancellationRequested)
            {
                return Interrupted;
            }
            var index = runs.Count + 1 + RunsBefore(experiment, plan);
            var position = new RunPosition(experiment.Name, variant.Name, block, plan.BlocksOf(experiment.Name), index, plan.TotalRuns, plan.Remaining(index));
            observer.RunStarting(position);
            var clock = Stopwatch.StartNew();
            var record = await RunOneAsync(experiment, variant, block, index, traced, ct);
            plan.Observe(experiment.Name, clock.Elapsed.TotalSeconds);
            runs.Add(record);
            observer.RunFinished(position, record);
            if (ct.IsCancellationRequested)
            {
                return Interrupted;
            }
            if (record.FailureKind == FailureKind.DatabaseDown)
            {
                return record.FailureReason;
            }
        }
        return null;
    }

    /// <summary>Runs of the experiments before this one, as planned and run: they all completed before it started.</summary>
    private static int RunsBefore(ExperimentDefinition experiment, RunPlan plan) =>
        plan.Experiments.TakeWhile(e => e.Name != experiment.Name).Sum(e => e.Variants * e.Blocks);

    private async Task<RunRecord> RunOneAsync(ExperimentDefinition experiment, VariantDefinition variant, int block, int order,
        List<TracedRun> traced, CancellationToken ct)
    {
        var id = new RunIdentity(variant.Name, block, order, DateTimeOffset.UtcNow);
        variant = experiment.Profiles[request.Profile].Apply(variant);
        var start = await _sessions.StartAsync(experiment, variant, $"{experiment.Name}-{variant.Name}-{block}.log", ct);
        if (start.Failure is { } failure)
        {
            return RunRecordBuilder.WithEffect(RunRecordBuilder.Failed(id, failure), start.Effect);
        }
        await using var sut = start.Sut!;
        return RunRecordBuilder.WithEffect(await MeasurementFor(experiment, variant, block, traced).MeasureAsync(sut, id, start.Info, ct), start.Effect);
    }

    /// <summary>The load engine's measurement, or uploads; each variant's first run is traced when traces are asked for.</summary>
    private IMeasurement MeasurementFor(ExperimentDefinition experiment, VariantDefinition variant, int block, List<TracedRun> traced)
    {
        var profile = experiment.Profiles[request.Profile];
        if (experiment.Scenarios is [{ Model: ScenarioKind.Upload } upload])
        {
            return new UploadMeasurement(upload, profile);
        }
        var trace = request.TraceFolder is { } folder && block == 1
            ? new EvidenceCapture(folder, Path.GetDirectoryName(folder)!, request.KeepTraces)
            : null;
        return new LoadMeasurement(experiment, variant, profile, experiment.App is null ? request.ConnectionString : null)
        {
            Capture = trace,
            Traced = traced.Add,
            Message = observer.Message,
        };
    }
}
