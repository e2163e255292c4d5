using System.Diagnostics;
using PerfLab.Experiments.Analysis;
using PerfLab.Experiments.Definitions;
using PerfLab.Results;
using PerfLab.Apps;

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

    private readonly ConditionedStarts _starts = new(request, observer);

    // Runs started so far in this invocation: a run's place in it (blocks added later come after every minimum block).
    private int _runsStarted;

    // A sweep runs as its points, one after another, each an experiment of its own.
    private IReadOnlyList<ExperimentDefinition> _experiments = request.Experiments.SelectMany(SweepDefinition.Points).ToList();

    public async Task<RunResults> RunAsync(NoiseFloors noise, CancellationToken ct)
    {
        var settings = new AnalysisSettings(request.Profile, request.Repeat, request.Aa, noise);
        var started = DateTimeOffset.UtcNow;
        var fitted = new List<string>();
        _experiments = RunOpening.FitBudget(_experiments, request.Profile, request.Budget, e => (Rule(e).MinBlocks, e.VariantsToRun(request.Aa).Count), fitted);
        foreach (var change in fitted)
        {
            observer.Message("to fit the budget: " + change);
        }
        var calibration = await RunOpening.CalibrateAsync(observer, ct);
        var repetitions = request.Repeat ?? _experiments.Select(e => e.Profiles[request.Profile].Repeat).DefaultIfEmpty(0).Max();
        // Started now and awaited at the end, so that an interrupted run does not wait for git and dotnet after Ctrl+C.
        var provenance = RunEnvironment.DescribeAsync(request.Profile, repetitions, request.Aa, request.Layout, request.DatabaseDescription, ct);
        var plan = new RunPlan(_experiments.Select(e => new PlannedExperiment(e.Name,
            RunPlan.PlannedRunSeconds(e, e.Profiles[request.Profile]), e.VariantsToRun(request.Aa).Count, Rule(e).MinBlocks)));
        var budget = new RunBudget(request.Budget, p => TimeSpan.FromSeconds(plan.EstimateBlockSeconds(p.Experiment.Name)));

        foreach (var experiment in _experiments)
        {
            var profile = experiment.Profiles[request.Profile];
            await _starts.Sessions.PrepareAsync(experiment, experiment.VariantsToRun(request.Aa).Select(profile.Apply).ToList(), ct);
        }
        if (_experiments.Count > 0 && !ct.IsCancellationRequested)
        {
            var first = _experiments[0];
            await _starts.Sessions.PrimeAsync(first, first.Profiles[request.Profile].Apply(RunPlan.Block(first.VariantsToRun(request.Aa), 1)[0]), ct);
        }

        var progress = new List<ExperimentProgress>();
        var incomplete = await RunBlocksAsync(progress, plan, budget, settings, ct);

        var results = progress.Where(p => p.Runs.Count > 0).Select(p => ResultOf(p, settings, incomplete)).ToList();
        var machineNoise = RunOpening.AtStart(calibration, results);
        if (machineNoise is not null)
        {
            observer.Message(machineNoise.Describe());
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
            Notes = [.. fitted.Select(c => "to fit the budget: " + c), .. CeilingNotes.Of(results)],
            MachineNoise = machineNoise,
            Sweeps = request.Experiments.Any(e => e.Sweep is not null) ? SweepAnalysis.Gather(request.Experiments, results) : null,
        };
    }

    /// <summary>
    /// Every experiment's minimum blocks in order, then the budget's time, block by block, where precision is missing;
    /// <paramref name="progress"/> gets one entry per experiment begun.
    /// </summary>
    /// <returns>When the whole run was cut short, why; else null, and every experiment has stopped.</returns>
    private async Task<string?> RunBlocksAsync(List<ExperimentProgress> progress, RunPlan plan, RunBudget budget, AnalysisSettings settings,
        CancellationToken ct)
    {
        string? incomplete = null;
        for (var i = 0; i < _experiments.Count && incomplete is null; i++)
        {
            var one = new ExperimentProgress(_experiments[i], Rule(_experiments[i]));
            progress.Add(one);
            do
            {
                incomplete = await RunNextBlockAsync(one, plan, budget, settings, later: i < _experiments.Count - 1, ct);
            }
            while (incomplete is null && !one.Decision.Stop && one.Blocks < one.Rule.MinBlocks);
        }
        while (incomplete is null && budget.Next(progress) is { } neediest)
        {
            incomplete = await RunNextBlockAsync(neediest, plan, budget, settings, later: false, ct);
        }
        if (incomplete is null)
        {
            // Those still short of their target: no block of theirs fits in what is left.
            foreach (var waiting in progress.Where(p => !p.Decision.Stop))
            {
                waiting.Decision = waiting.Rule.Decide(waiting.Blocks, waiting.Widest, roomForAnotherBlock: false);
            }
        }
        return incomplete;
    }

    private StoppingRule Rule(ExperimentDefinition experiment) =>
        StoppingRule.For(experiment.Profiles[request.Profile], request.Repeat, request.PrecisionPercent);

    /// <summary>
    /// One more block of the experiment, then the stopping rule's decision. <paramref name="later"/>: other experiments
    /// still wait for their minimum blocks, so a block beyond the minimum waits until they have had theirs.
    /// </summary>
    /// <returns>When the whole run must stop, why (Ctrl+C, the database went down); else null.</returns>
    private async Task<string?> RunNextBlockAsync(ExperimentProgress p, RunPlan plan, RunBudget budget, AnalysisSettings settings, bool later,
        CancellationToken ct)
    {
        p.Blocks++;
        if (p.Blocks > plan.BlocksOf(p.Experiment.Name))
        {
            plan.AddBlock(p.Experiment.Name);
        }
        var stop = await RunBlockAsync(p.Experiment, RunPlan.Block(p.Experiment.VariantsToRun(request.Aa), p.Blocks), p.Blocks, plan, p.Runs, p.Traced, ct);
        if (stop is not null)
        {
            return stop;
        }
        p.Widest = StoppingRule.WidestHalfWidth(ExperimentAnalyzer.Analyze(p.Experiment, p.Runs, settings).Comparisons, p.Experiment.Decide);
        var decision = p.Rule.Decide(p.Blocks, p.Widest, budget.HasRoomFor(p));
        if (!decision.Stop && p.Blocks >= p.Rule.MinBlocks && StoppingRule.NeverInEffect(p.Runs) is { } never)
        {
            decision = new StopDecision(true, never);
        }
        if (!decision.Stop && later && p.Blocks >= p.Rule.MinBlocks)
        {
            decision = StopDecision.Later;
        }
        p.Decision = decision;
        observer.BlockFinished(new BlockProgress(p.Experiment.Name, p.Blocks, p.Widest, p.Rule.PrecisionPercent, decision));
        return null;
    }

    private static ExperimentResult ResultOf(ExperimentProgress p, AnalysisSettings settings, string? incomplete) =>
        EvidenceFindings.Apply(ExperimentAnalyzer.Analyze(p.Experiment, p.Runs, settings), p.Traced) with
        {
            Blocks = p.Blocks,
            PrecisionTargetPercent = p.Rule.PrecisionPercent,
            // Every experiment has stopped by now, unless the whole run was cut short.
            StopReason = p.Decision.Stop ? p.Decision.Reason : incomplete,
        };

    /// <returns>Why the whole run must stop (Ctrl+C, the database went down), or null to go on.</returns>
    private async Task<string?> RunBlockAsync(ExperimentDefinition experiment, IReadOnlyList<VariantDefinition> order, int block,
        RunPlan plan, List<RunRecord> runs, List<TracedRun> traced, CancellationToken ct)
    {
        if (Alternates(experiment))
        {
            return await RunAlternatingBlockAsync(experiment, order, block, plan, runs, traced, ct);
        }
        foreach (var variant in order)
        {
            if (ct.IsCancellationRequested)
            {
                return Interrupted;
            }
            var index = ++_runsStarted;
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

    /// <summary>Whether the experiment's blocks take turns in slots (<see cref="AlternatingBlock"/>) under this profile.</summary>
    private bool Alternates(ExperimentDefinition experiment) =>
        experiment.Profiles[request.Profile].Slots is not null && experiment.Scenarios.All(s => s.Model is ScenarioKind.Closed or ScenarioKind.Open);

    /// <summary>
    /// A block of <see cref="AlternatingBlock"/>: every variant's SUT started and confirmed, then measured taking turns;
    /// a variant whose SUT did not start is recorded failed and the others go on. Block 1's variants are traced
    /// afterwards, one after the other, as single runs are.
    /// </summary>
    private async Task<string?> RunAlternatingBlockAsync(ExperimentDefinition experiment, IReadOnlyList<VariantDefinition> order, int block,
        RunPlan plan, List<RunRecord> runs, List<TracedRun> traced, CancellationToken ct)
    {
        var clock = Stopwatch.StartNew();
        var first = _runsStarted + 1;
        _runsStarted += order.Count;
        var positions = order.Select((v, i) => new RunPosition(experiment.Name, v.Name, block, plan.BlocksOf(experiment.Name), first + i,
            plan.TotalRuns, plan.Remaining(first))).ToList();
        var started = new StartedBlock(order.Count);
        try
        {
            if (!await StartParticipantsAsync(experiment, order, block, first, positions, started, traced, ct))
            {
                return Interrupted;
            }
            var alternating = new AlternatingBlock(experiment, experiment.Profiles[request.Profile], observer.Message);
            var measured = started.Participants.Count > 0 ? await alternating.RunAsync(started.Participants, ct) : [];
            started.Fill(measured);
            await AlternatingBlock.TraceAsync(started.Participants, measured, ct);
        }
        finally
        {
            await started.DisposeAsync();
        }
        for (var i = 0; i < order.Count; i++)
        {
            plan.Observe(experiment.Name, clock.Elapsed.TotalSeconds / order.Count);
            runs.Add(started.Records[i]!);
            observer.RunFinished(positions[i], started.Records[i]!);
        }
        return ct.IsCancellationRequested
            ? Interrupted
            : started.Records.FirstOrDefault(r => r!.FailureKind == FailureKind.DatabaseDown)?.FailureReason;
    }

    /// <summary>
    /// Starts every variant of the block under its conditions; false when Ctrl+C came first. The database paths are opened
    /// (and measured) one after the other on a quiet machine; then the SUTs start all at once, since nothing is measured
    /// while they start and each spends a couple of seconds compiling its start-up code.
    /// </summary>
    private async Task<bool> StartParticipantsAsync(ExperimentDefinition experiment, IReadOnlyList<VariantDefinition> order, int block, int first,
        IReadOnlyList<RunPosition> positions, StartedBlock started, List<TracedRun> traced, CancellationToken ct)
    {
        var conditioned = new List<ConditionedStarts.Conditioned>(order.Count);
        for (var i = 0; i < order.Count; i++)
        {
            if (ct.IsCancellationRequested)
            {
                return false;
            }
            observer.RunStarting(positions[i]);
            var id = new RunIdentity(order[i].Name, block, first + i, DateTimeOffset.UtcNow);
            var one = await _starts.OpenConditionsAsync(experiment, order[i], id, ct);
            if (one.Path is not null)
            {
                started.Paths.Add(one.Path);
            }
            conditioned.Add(one);
        }
        var starts = await Task.WhenAll(conditioned.Select(c => c.Failed is null ? _starts.StartSutAsync(experiment, c, block, ct) : Task.FromResult(c.AsStart())));
        for (var i = 0; i < starts.Length; i++)
        {
            if (starts[i].Failed is { } failed)
            {
                started.Records[i] = failed;
                continue;
            }
            var measurement = (LoadMeasurement)MeasurementFor(experiment, starts[i].Variant, block, traced);
            started.Participants.Add(new BlockParticipant(starts[i].Variant, conditioned[i].Id, starts[i].Sut!, starts[i].Info, measurement)
            {
                DatabasePath = starts[i].Path?.Stats,
                Effect = starts[i].Effect,
            });
        }
        return !ct.IsCancellationRequested;
    }

    /// <summary>An alternating block's SUTs and database paths (disposed in that order) and its records by block position.</summary>
    private sealed class StartedBlock(int variants) : IAsyncDisposable
    {
        public List<BlockParticipant> Participants { get; } = [];
        public List<DatabasePath> Paths { get; } = [];
        public RunRecord?[] Records { get; } = new RunRecord?[variants];

        /// <summary>The measured records (one per participant, in order) into the places the failed starts left free.</summary>
        public void Fill(IReadOnlyList<RunRecord> measured)
        {
            for (int i = 0, j = 0; i < Records.Length && j < measured.Count; i++)
            {
                Records[i] ??= measured[j++];
            }
        }

        public async ValueTask DisposeAsync()
        {
            foreach (var p in Participants)
            {
                await p.Sut.DisposeAsync();
            }
            // After the SUTs: each reached the database through its path.
            foreach (var path in Paths)
            {
                await path.DisposeAsync();
            }
        }
    }

    private async Task<RunRecord> RunOneAsync(ExperimentDefinition experiment, VariantDefinition variant, int block, int order,
        List<TracedRun> traced, CancellationToken ct)
    {
        var id = new RunIdentity(variant.Name, block, order, DateTimeOffset.UtcNow);
        var started = await _starts.StartUnderConditionsAsync(experiment, variant, id, block, ct);
        // Disposed last: the SUT stops before the proxy it reaches the database through.
        await using var databasePath = started.Path;
        if (started.Failed is { } failed)
        {
            return failed;
        }
        await using var sut = started.Sut!;
        var record = await MeasurementFor(experiment, started.Variant, block, traced).MeasureAsync(sut, id, started.Info, ct);
        return RunRecordBuilder.WithEffect(record, started.Effect) with { DatabasePath = started.Path?.Stats };
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
