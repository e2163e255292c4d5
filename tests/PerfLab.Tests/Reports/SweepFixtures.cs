using PerfLab.Results;

namespace PerfLab.Tests.Reports;

/// <summary>The sample run with a sweep of async and a second variant over the database RTT, figures chosen by hand.</summary>
internal static class SweepFixtures
{
    public static RunResults Sample() => ReportFixtures.Sample() with { Sweeps = [Sweep()] };

    public static SweepResult Sweep()
    {
        double[] values = [0, 0.5, 1, 2, 5];
        return new SweepResult
        {
            Experiment = "sync-async-rtt",
            Title = "async/await against blocking data access, by database round-trip time",
            Baseline = "sync",
            Condition = ConditionKind.DatabaseRtt,
            Values = values,
            Metric = Metrics.Get("rps"),
            Points = ["sync-async-rtt@0-ms", "sync-async-rtt@0.5-ms", "sync-async-rtt@1-ms", "sync-async-rtt@2-ms", null],
            Variants =
            [
                new SweepSeries
                {
                    Variant = "async",
                    Points =
                    [
                        new(0, -10, -14, -6, Verdict.Worse),
                        new(0.5, -2, -6, 2, Verdict.Inconclusive),
                        new(1, 3, -1, 7, Verdict.Inconclusive),
                        new(2, 12, 8, 16, Verdict.Better),
                        new(5, null, null, null, Verdict.Inconclusive),
                    ],
                    Crossover = 2,
                },
                new SweepSeries
                {
                    Variant = "sync-min-threads",
                    Points = values.Select(v => v == 5
                        ? new SweepPointChange(v, null, null, null, Verdict.Inconclusive)
                        : new SweepPointChange(v, 1, -3, 5, Verdict.Equivalent)).ToList(),
                    Crossover = null,
                },
            ],
        };
    }
}
