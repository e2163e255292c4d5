using System.Diagnostics;
using PerfLab.Common;
using PerfLab.Experiments.Analysis;
using PerfLab.Experiments.Definitions;
using PerfLab.Results;
using PerfLab.Experiments.Running.Blocks;
using PerfLab.Experiments.Running.Budget;
using PerfLab.Experiments.Running.Databases;

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
    private readonly ConditionedStarts _starts = new(request, observer);
    private readonly Measurements _measurements = new(request, observer);
    private AlternatingBlocks Alternating => new(_starts, _measurements, observer, ProfileOf);
    private readonly DatabaseBeforeBlocks _database = new(request.ConnectionString, observer, request.DatabaseReset);

    // Runs started so far in this invocation: a run's place in it (blocks added later come after every minimum block).
    private int _runsStarted;

    // A sweep runs as its points, one after another, each an experiment of its own.
    private IReadOnlyList<ExperimentDefinition> _experiments = request.Experiments.SelectMany(SweepDefinition.Points).ToList();

    public async Task<RunResults> RunAsync(NoiseFloors noise, CancellationToken ct)
    {
        var settings = new AnalysisSettings(request.Profile, request.Repeat, request.Aa, noise, request.Margin);
        var started = DateTimeOffset.UtcNow;
        var traced = request.TraceFolder is not null;
        (int, int) Minimum(ExperimentDefinition e) => (Rule(e).MinBlocks, e.VariantsToRun(request.Aa).Count);
        // Refused here, before any variant is built or SUT started, when even the shortest minimum overruns the whole budget.
        RunOpening.FitBudget(_experiments, request.Profile, request.Budget.Total, request.Budget.Spent(), traced, Minimum, []);
        var calibration = await RunOpening.CalibrateAsync(observer, ct);
        var repetitions = request.Repeat ?? _experiments.Select(e => ProfileOf(e).Repeat).DefaultIfEmpty(0).Max();
        // Started now and awaited at the end, so that an interrupted run does not wait for git and dotnet after Ctrl+C.
        var provenance = RunEnvironment.DescribeAsync(request, repetitions, ct);
        await PrepareAsync(ct);
        // Fitted once the variants are built and primed: what preparing took is known, and the rest is what is left.
        var fitted = new List<string>();
        var fit = RunOpening.FitBudget(_experiments, request.Profile, request.Budget.Total, request.Budget.Spent(), traced, Minimum,
            fitted);
        _experiments = fit.Experiments;
        foreach (var change in fitted)
        {
            observer.Report("to fit the budget: " + change);
        }
        var plan = new RunPlan(_experiments.Select(e => new PlannedExperiment(e.Name, RunPlan.PlannedRunSeconds(e, ProfileOf(e)),
            e.VariantsToRun(request.Aa).Count, Rule(e).MinBlocks)), endsWithin: fit.Fits ? request.Budget : null);
        var state = new RunState(plan, new RunBudget(request.Budget,
            p => TimeSpan.FromSeconds(plan.EstimateBlockSeconds(p.Experiment.Name))), settings);

        var progress = new List<ExperimentProgress>();
        var halt = await RunBlocksKeepingWhatWasMeasuredAsync(progress, state, ct);

        var results = progress.Where(p => p.Runs.Count > 0).Select(p => ResultOf(p, settings, halt)).ToList();
        var machineNoise = DecidableNoise.Of(RunOpening.AtStart(calibration, results), results);
        if (machineNoise is not null)
        {
            observer.Report(machineNoise.Describe());
        }
        return new RunResults
        {
            StartedAt = started,
            FinishedAt = DateTimeOffset.UtcNow,
            Profile = request.Profile.Key(),
            Provenance = (await provenance) with { DatabaseState = _database.State },
            Experiments = results,
            Incomplete = halt is not null,
            IncompleteReason = halt?.Reason,
            Notes = [.. fitted.Select(c => "to fit the budget: " + c), .. CeilingNotes.Of(results)],
            MachineNoise = machineNoise,
            Sweeps = request.Experiments.Any(e => e.Sweep is not null) ? SweepAnalysis.Gather(request.Experiments, results) : null,
        };
    }

    /// <summary>Every experiment's variants prepared, then the first primed if its block runs in turn (see PrimeAsync).</summary>
    private async Task PrepareAsync(CancellationToken ct)
    {
        foreach (var experiment in _experiments)
        {
            var variants = experiment.VariantsToRun(request.Aa).Select(ProfileOf(experiment).Apply).ToList();
            await _starts.Sessions.PrepareAsync(experiment, variants, ct);
        }
        if (_experiments.Count > 0 && !ct.IsCancellationRequested && !Alternates(_experiments[0]))
        {
            var first = _experiments[0];
            await _starts.Sessions.PrimeAsync(first, ProfileOf(first).Apply(RunPlan.Block(first.VariantsToRun(request.Aa), 1)[0]), ct);
        }
    }

    /// <summary>What every block of the run shares: the plan it counts in, the time budget, the analysis settings.</summary>
    private sealed record RunState(RunPlan Plan, RunBudget Budget, AnalysisSettings Settings);

    private ProfileDefinition ProfileOf(ExperimentDefinition experiment) => experiment.Profiles[request.Profile];

    /// <summary>
    /// Nothing already measured is lost to a bug or to Ctrl+C: the runs so far are analysed and written, the run marked
    /// incomplete.
    /// </summary>
    private async Task<RunHalt?> RunBlocksKeepingWhatWasMeasuredAsync(List<ExperimentProgress> progress, RunState state,
        CancellationToken ct)
    {
        try
        {
            return await RunBlocksAsync(progress, state, ct);
        }
        catch (OperationCanceledException) when (ct.IsCancellationRequested && progress.Any(p => p.Runs.Count > 0))
        {
            // Ctrl+C while a run set itself up (its tiering watch, cost meter, counter session): that run had measured
            // nothing; the runs before it are written (CI saw one such signal end an invocation without its results).
            return RunHalt.Interrupted;
        }
        catch (Exception ex) when (ex is not OperationCanceledException and not PerfLabException && progress.Any(p => p.Runs.Count > 0))
        {
            var halt = RunHalt.Fault(ex, request.LogFolder);
            observer.Report("error: " + halt.Reason);
            return halt;
        }
    }

    /// <summary>
    /// Every experiment's minimum blocks in order, then the budget's time, block by block, where precision is missing;
    /// <paramref name="progress"/> gets one entry per experiment begun.
    /// </summary>
    /// <returns>When the whole run was cut short, why; else null, and every experiment has stopped.</returns>
    private async Task<RunHalt?> RunBlocksAsync(List<ExperimentProgress> progress, RunState state, CancellationToken ct)
    {
        RunHalt? halt = null;
        for (var i = 0; i < _experiments.Count && halt is null; i++)
        {
            var one = new ExperimentProgress(_experiments[i], Rule(_experiments[i]));
            progress.Add(one);
            do
            {
                halt = await RunNextBlockAsync(one, state, later: i < _experiments.Count - 1, ct);
            }
            while (halt is null && !one.Decision.Stop && one.Blocks < one.Rule.MinBlocks);
        }
        state.Plan.SpendingTheBudget = true;
        while (halt is null && state.Budget.Next(progress) is { } next)
        {
            halt = await RunNextBlockAsync(next, state, later: false, ct);
        }
        if (halt is null)
        {
            // Those still short of their target: no block of theirs fits in what is left.
            foreach (var waiting in progress.Where(p => !p.Decision.Stop))
            {
                waiting.Decision = waiting.Rule.Decide(waiting.Blocks, waiting.Widest, roomForAnotherBlock: false);
            }
        }
        return halt;
    }

    private StoppingRule Rule(ExperimentDefinition experiment) =>
        StoppingRule.For(ProfileOf(experiment), request.Repeat, request.PrecisionPercent);

    /// <summary>
    /// One more block of the experiment, then the stopping rule's decision. <paramref name="later"/>: other experiments
    /// still wait for their minimum blocks, so a block beyond the minimum waits until they have had theirs.
    /// </summary>
    /// <returns>When the whole run must stop, why (Ctrl+C, the database went down); else null.</returns>
    private async Task<RunHalt?> RunNextBlockAsync(ExperimentProgress p, RunState state, bool later, CancellationToken ct)
    {
        p.Blocks++;
        if (p.Blocks > state.Plan.BlocksOf(p.Experiment.Name))
        {
            state.Plan.AddBlock(p.Experiment.Name);
        }
        var block = new BlockRun(p, RunPlan.Block(p.Experiment.VariantsToRun(request.Aa), p.Blocks), p.Blocks, state.Plan);
        var clock = Stopwatch.StartNew();
        var halt = await RunBlockAsync(block, ct);
        p.WallSeconds += clock.Elapsed.TotalSeconds;
        if (halt is not null)
        {
            return halt;
        }
        p.Widest = StoppingRule.WidestHalfWidth(ExperimentAnalyzer.Analyze(p.Experiment, p.Runs, state.Settings).Comparisons,
            p.Experiment.Decide);
        var decision = p.Rule.Decide(p.Blocks, p.Widest, state.Budget.HasRoomFor(p));
        if (!decision.Stop && p.Blocks >= p.Rule.MinBlocks && StoppingRule.NeverInEffect(p.Runs) is { Stop: true } never)
        {
            decision = never;
        }
        if (!decision.Stop && later && p.Blocks >= p.Rule.MinBlocks)
        {
            decision = StopDecision.Later;
        }
        p.Decision = decision;
        observer.BlockFinished(new BlockProgress(p.Experiment.Name, p.Blocks, p.Widest, p.Rule.PrecisionPercent, decision));
        return null;
    }

    private static ExperimentResult ResultOf(ExperimentProgress p, AnalysisSettings settings, RunHalt? halt) =>
        EvidenceFindings.Apply(ExperimentAnalyzer.Analyze(p.Experiment, p.Runs, settings), p.Traced, p.TraceFailures) with
        {
            Blocks = p.Blocks,
            PrecisionTargetPercent = p.Rule.PrecisionPercent,
            // Every experiment has stopped by now, unless the whole run was cut short.
            StopReason = p.Decision.Stop ? p.Decision.Reason : halt?.Reason,
            Time = DutyCycle.Of(p.Runs, p.WallSeconds),
            Method = p.Experiment.Method.Key,
        };

    /// <returns>Why the whole run must stop (Ctrl+C, the database went down), or null to go on.</returns>
    private async Task<RunHalt?> RunBlockAsync(BlockRun block, CancellationToken ct)
    {
        await _database.ResetAsync(ct);
        if (Alternates(block.Experiment))
        {
            var first = _runsStarted + 1;
            _runsStarted += block.Order.Count;
            return await Alternating.RunAsync(block, first, ct);
        }
        foreach (var variant in block.Order)
        {
            if (ct.IsCancellationRequested)
            {
                return RunHalt.Interrupted;
            }
            var index = ++_runsStarted;
            var position = block.Position(variant, index, index);
            observer.RunStarting(position);
            var clock = Stopwatch.StartNew();
            var record = await RunOneAsync(block, variant, index, ct);
            block.Plan.Observe(block.Experiment.Name, block.Number, clock.Elapsed.TotalSeconds);
            block.Progress.Runs.Add(record);
            observer.RunFinished(position, record);
            if (ct.IsCancellationRequested)
            {
                return RunHalt.Interrupted;
            }
            if (RunHalt.After(record) is { } halt)
            {
                return halt;
            }
        }
        return null;
    }

    /// <summary>Whether the experiment's blocks take turns in slots (<see cref="AlternatingBlock"/>) under this profile.</summary>
    private bool Alternates(ExperimentDefinition experiment) =>
        experiment.Method.OneProcess || AlternatingBlock.Applies(experiment, ProfileOf(experiment));

    private async Task<RunRecord> RunOneAsync(BlockRun block, VariantDefinition variant, int order, CancellationToken ct)
    {
        var id = new RunIdentity(variant.Name, block.Number, order, DateTimeOffset.UtcNow);
        var started = await _starts.StartUnderConditionsAsync(block.Experiment, variant, id, block.Number, ct);
        // Disposed last: the SUT stops before the proxy it reaches the database through.
        await using var databasePath = started.Path;
        if (started.Failed is { } failed)
        {
            return failed;
        }
        await using var sut = started.Sut!;
        var record = await _measurements.For(block, started.Variant).MeasureAsync(sut, id, started.Info, ct);
        return RunRecordBuilder.WithEffect(record, started.Effect) with { DatabasePath = started.Path?.Stats };
    }
}
