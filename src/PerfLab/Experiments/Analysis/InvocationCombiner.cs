using System.Globalization;
using PerfLab.Experiments.Definitions;
using PerfLab.Results;

namespace PerfLab.Experiments.Analysis;

/// <summary>One finished invocation of a run repeated with `--invocations`, and what it measured.</summary>
public sealed record InvocationOutcome(InvocationRecord Record, RunResults Results);

/// <summary>
/// The result of a run repeated as invocations: per experiment, every invocation's runs together (their blocks kept
/// apart, renumbered after one another) for the summaries, findings and run-order figures, and every comparison pooled
/// over the invocations (<see cref="InvocationPooling"/>), which the verdicts, claims and gates read.
/// </summary>
public static class InvocationCombiner
{
    /// <param name="selected">The experiments as the command line chose them (a sweep unexpanded).</param>
    /// <param name="interrupted">Why the invocations stopped before the last, or null when all ran.</param>
    public static RunResults Combine(IReadOnlyList<InvocationOutcome> invocations, IReadOnlyList<ExperimentDefinition> selected,
        AnalysisSettings settings, string? interrupted)
    {
        var first = invocations[0].Results;
        var definitions = selected.SelectMany(SweepDefinition.Points).ToList();
        var names = invocations.SelectMany(i => i.Results.Experiments.Select(e => e.Name)).Distinct().ToList();
        var experiments = names.Select(name => CombineExperiment(name, invocations, definitions, settings)).ToList();
        var incomplete = interrupted ?? invocations.Select(i => i.Results.IncompleteReason).FirstOrDefault(r => r is not null);
        return first with
        {
            StartedAt = invocations.Min(i => i.Results.StartedAt),
            FinishedAt = invocations.Max(i => i.Results.FinishedAt),
            Experiments = experiments,
            // The first line says what the pooled comparisons could decide, not what the first invocation's own could.
            MachineNoise = DecidableNoise.Of(first.MachineNoise, experiments),
            Incomplete = interrupted is not null || invocations.Any(i => i.Results.Incomplete),
            IncompleteReason = incomplete,
            Notes = [PooledNote(invocations), .. first.Notes],
            Thresholds = [],
            Sweeps = selected.Any(e => e.Sweep is not null) ? SweepAnalysis.Gather(selected, experiments) : null,
            Invocations = [.. invocations.Select(i => i.Record)],
        };
    }

    private static ExperimentResult CombineExperiment(string name, IReadOnlyList<InvocationOutcome> invocations,
        IReadOnlyList<ExperimentDefinition> definitions, AnalysisSettings settings)
    {
        var each = invocations
            .SelectMany(i => i.Results.Experiments.Where(e => e.Name == name).Select(e => (i.Record.Number, Experiment: e)))
            .ToList();
        var pooled = InvocationPooling.PoolAll(each);
        var runs = Renumbered(each.Select(e => e.Experiment.Runs).ToList());
        var last = each[^1].Experiment;
        var (tracedIn, traced) = each.FirstOrDefault(e => e.Experiment.Evidence.Count > 0);
        var analyzed = definitions.FirstOrDefault(d => d.Name == name) is { } definition
            ? ExperimentAnalyzer.Analyze(definition, runs, settings, pooled)
            // Without its definition, the noise line is still the pooled comparisons', as Analyze gives it with one.
            : last with
            {
                Runs = runs,
                Comparisons = pooled,
                MachineNoise = DecidableNoise.Of(last.MachineNoise, [last with { Comparisons = pooled }]),
            };
        return analyzed with
        {
            // Traces are taken in each invocation's first blocks; their findings name places the counters alone cannot.
            Findings = traced?.Findings ?? analyzed.Findings,
            Evidence = traced?.Evidence ?? analyzed.Evidence,
            Blocks = each.Sum(e => e.Experiment.Blocks),
            Time = each.All(e => e.Experiment.Time is not null)
                ? new DutyCycle(each.Sum(e => e.Experiment.Time!.WallSeconds), each.Sum(e => e.Experiment.Time!.MeasuredSeconds))
                : null,
            PrecisionTargetPercent = last.PrecisionTargetPercent,
            StopReason = string.Create(CultureInfo.InvariantCulture,
                $"{each.Count} invocations pooled ({string.Join(", ", each.Select(e => $"{e.Experiment.Blocks} blocks"))}"
                    + $"; each stopped: {string.Join("; ", each.Select(e => e.Experiment.StopReason ?? "?").Distinct())})"),
            Notes = [.. analyzed.Notes, .. last.Notes.Where(n => !analyzed.Notes.Contains(n)), .. TracedNote(tracedIn, each.Count)],
        };
    }

    /// <summary>
    /// Every invocation's runs in one list, each invocation's blocks (repetitions) and run order after the previous
    /// one's, so a pair is never made across invocations and the run-order table reads as the runs happened.
    /// </summary>
    public static IReadOnlyList<RunRecord> Renumbered(IReadOnlyList<IReadOnlyList<RunRecord>> each)
    {
        var all = new List<RunRecord>();
        var (repetitions, orders) = (0, 0);
        foreach (var runs in each)
        {
            all.AddRange(runs.Select(r => r with { Repetition = r.Repetition + repetitions, Order = r.Order + orders }));
            repetitions += runs.Count == 0 ? 0 : runs.Max(r => r.Repetition);
            orders += runs.Count == 0 ? 0 : runs.Max(r => r.Order);
        }
        return all;
    }

    private static IEnumerable<string> TracedNote(int invocation, int of) => invocation == 0 || of < 2
        ? []
        : [$"The findings and the evidence from traces are invocation {invocation}'s (of {of}); the verdicts pool all of them."];

    private static string PooledNote(IReadOnlyList<InvocationOutcome> invocations) =>
        $"Pooled over {invocations.Count} invocations ({string.Join(", ", invocations.Select(i => i.Record.Folder))}), each a perflab " +
        "process of its own with fresh SUT processes: every change is the mean of the invocations' own paired estimates, its 95 % " +
        "interval from their spread (Student's t, invocations - 1 degrees of freedom), never narrower than their own intervals allow.";
}
