using System.Text.Json;
using PerfLab.Reports;
using PerfLab.Results;
using PerfLab.Tests.Reports;

namespace PerfLab.Tests.Results;

/// <summary>
/// results.json names the metric that decided each experiment, as the reports picked it, so that scripts
/// (bench/acceptance/verdicts.py) read it instead of repeating the rule; the file still reads back.
/// </summary>
public sealed class DecidingMetricTests
{
    [Theory]
    [InlineData("cpu-per-request", "cpu-per-request-full-speed")] // cost asked, the cores' speed sampled: at full speed
    [InlineData("rps", "rps")]
    [InlineData("p99-ms", "rps")] // latency asked but not compared: RPS stood in
    public void ResultsJson_AnExperimentDecidedBy_NamesTheMetricThatDecided(string asked, string expected)
    {
        var sample = ReportFixtures.Sample();
        var experiment = sample.Experiments[0] with
        {
            DecidedBy = Metrics.Get(asked),
            Comparisons = [Compared("rps"), Compared("cpu-per-request"), Compared("cpu-per-request-full-speed")],
        };
        var json = ResultsJson.Serialize(sample with { Experiments = [experiment] });

        var written = JsonDocument.Parse(json).RootElement.GetProperty("experiments")[0];
        Assert.Equal(expected, written.GetProperty("decidingMetric").GetString());
        Assert.Equal(asked, written.GetProperty("decidedBy").GetString());
        Assert.Equal(expected, ResultsJson.Deserialize(json, "test").Experiments[0].DecidingMetric.Key);
    }

    private static Comparison Compared(string metric) => new()
    {
        Variant = "b", Scenario = Metric.AllScenarios, Metric = Metrics.Get(metric), HigherIsBetter = metric == "rps", ChangePercent = 1,
        LowPercent = -1, HighPercent = 3, NoiseFloorPercent = 3, Verdict = Verdict.Inconclusive,
    };
}
