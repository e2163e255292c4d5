using System.Diagnostics;
using PerfLab.Experiments.Definitions;

namespace PerfLab.Experiments.Running.Blocks;

/// <summary>
/// Runs a run's <see cref="AlternatingBlock"/>s: every variant's SUT started and confirmed (or one SUT for all, in
/// process), then measured taking turns; a variant whose SUT did not start is recorded failed and the others go on.
/// Block 1's variants are traced afterwards, one after the other, as single runs are (taken beside the next block's
/// starts instead, the traces read 1.4-3 times the blocked time: docs/benchmarks/duty-cycle.md).
/// </summary>
internal sealed class AlternatingBlocks(ConditionedStarts starts, Measurements measurements, IRunObserver observer,
    Func<ExperimentDefinition, ProfileDefinition> profileOf)
{
    private InProcessBlock InProcess => new(starts, measurements, observer);

    /// <summary>
    /// One block whose runs are numbered from <paramref name="first"/>; its records go to the block's experiment.
    /// </summary>
    /// <returns>Why the whole run must stop (Ctrl+C, the database went down), or null to go on.</returns>
    public async Task<RunHalt?> RunAsync(BlockRun block, int first, CancellationToken ct)
    {
        var clock = Stopwatch.StartNew();
        var positions = block.Order.Select((v, i) => block.Position(v, first + i, first)).ToList();
        var started = new StartedBlock(block.Order.Count);
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
            var measured = started.Participants.Count > 0 ? await alternating.RunAsync(started.Participants, ct) : [];
            started.Fill(measured);
            await AlternatingBlock.TraceAsync(started.Participants, measured, ct);
        }
        finally
        {
            await started.DisposeAsync();
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
