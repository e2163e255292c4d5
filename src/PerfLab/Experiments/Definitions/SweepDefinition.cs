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
        return sweep.Values.Select(value => PointAt(experiment, sweep.Condition, value)).ToList();
    }

    private static ExperimentDefinition PointAt(ExperimentDefinition experiment, ConditionKind kind, double value)
    {
        var label = ConditionNames.Value(kind, value);
        var conditions = experiment.Conditions.With(kind, value);
        return experiment with
        {
            Name = $"{experiment.Name}@{label.Replace(' ', '-')}",
            Title = $"{experiment.Title} ({ConditionNames.Describe(kind, value)})",
            Conditions = conditions,
            Sweep = null,
            Point = new SweepPoint(experiment.Name, kind, value),
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
