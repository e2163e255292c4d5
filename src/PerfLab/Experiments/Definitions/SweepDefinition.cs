using PerfLab.Results;

namespace PerfLab.Experiments.Definitions;

/// <summary>
/// An experiment's `sweep`: one condition and its values (at least two, ascending). Each value is a point: the
/// experiment with that condition applied (<see cref="Points"/>), run through the same blocks and stopping rule as
/// any experiment, its comparisons analysed as any experiment's.
/// </summary>
public sealed record SweepDefinition(ConditionKind Condition, IReadOnlyList<double> Values)
{
    /// <summary>The experiment at each value, in ascending order, named "experiment@value" (e.g. sync-async-rtt@0.5-ms).</summary>
    public static IReadOnlyList<ExperimentDefinition> Points(ExperimentDefinition experiment)
    {
        if (experiment.Sweep is not { } sweep)
        {
            return [experiment];
        }
        return sweep.Values.Select(value => PointAt(experiment, sweep, value)).ToList();
    }

    /// <summary>
    /// The one value whose point is traced (when traces are asked for): the highest. Tracing every point cost a trace
    /// and its analysis per variant and point, 8 in a 4-point sweep of two variants, the largest fixed cost of a sweep;
    /// the highest value is where the condition is strongest, so where what a trace looks for shows most: with the most
    /// users in flight, contention on a lock and threads blocked while others queue; at the longest database round trip,
    /// the longest blocked waits. A sweep then costs as many traces as a plain experiment.
    /// </summary>
    public double TracedValue => Values.Max();

    private static ExperimentDefinition PointAt(ExperimentDefinition experiment, SweepDefinition sweep, double value)
    {
        var kind = sweep.Condition;
        var label = ConditionNames.Value(kind, value);
        var conditions = experiment.Conditions.With(kind, value);
        return experiment with
        {
            Name = $"{experiment.Name}@{label.Replace(' ', '-')}",
            Title = $"{experiment.Title} ({ConditionNames.Describe(kind, value)})",
            Conditions = conditions,
            Sweep = null,
            Point = new SweepPoint(experiment.Name, kind, value),
            Traced = experiment.Traced && value == sweep.TracedValue,
            Scenarios = conditions.Users is { } users
                ? experiment.Scenarios.Select(s => s.Model is Load.ClosedModel closed ? s with { Model = closed with { Users = users } }
                    : s).ToList()
                : experiment.Scenarios,
            Variants = conditions.MinThreads is { } threads
                ? experiment.Variants.Select(v => v with { Settings = WithMinThreads(v.Settings, threads) }).ToList()
                : experiment.Variants,
            Claims = experiment.Claims.Select(c => c with { Text = $"{c.Text} ({ConditionNames.Describe(kind, value)})" }).ToList(),
        };
    }

    private static Dictionary<string, string> WithMinThreads(IReadOnlyDictionary<string, string> settings, int threads) =>
        new(settings) { [MinThreadsSetting] = threads.ToString(System.Globalization.CultureInfo.InvariantCulture) };

    /// <summary>The SUT setting a min-threads condition sets.</summary>
    public const string MinThreadsSetting = "ThreadPool:MinWorkerThreads";
}
