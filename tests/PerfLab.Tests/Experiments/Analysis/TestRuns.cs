using PerfLab.Results;

namespace PerfLab.Tests.Experiments.Analysis;

/// <summary>Successful run records with the figures an analysis test sets, and neutral values elsewhere.</summary>
internal static class TestRuns
{
    public static RunRecord Ok(string variant, int block, int order, double rps, params double[] perSecond) => new()
    {
        Variant = variant,
        Repetition = block,
        Order = order,
        Status = RunStatus.Ok,
        StartedAt = DateTimeOffset.UnixEpoch,
        Scenarios =
        [
            new ScenarioStats
            {
                Scenario = "s", Requests = (long)rps, Rps = rps, MeanMs = 10, StdDevMs = 1, MinMs = 1, P50Ms = 10, P75Ms = 10,
                P90Ms = 10, P95Ms = 10, P99Ms = 20, P999Ms = 20, MaxMs = 30, BytesReceived = 0, Errors = 0,
            },
        ],
        Counters = new Dictionary<string, double>(),
        StarvationInjections = 0,
        Timeline = perSecond.Select((r, i) => new TimelinePoint
        {
            Second = i, Rps = r, P50Ms = 1, P99Ms = 1, Errors = 0, Users = 1, Counters = new Dictionary<string, double>(),
        }).ToList(),
        GeneratorCpuPercent = 1,
        GeneratorSaturated = false,
    };
}
