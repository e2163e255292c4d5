using PerfLab.Results;
using YamlDotNet.RepresentationModel;

namespace PerfLab.Experiments.Definitions;

/// <summary>
/// Which figure decides an experiment's verdict (<c>decide:</c>); the report shows the others beside it. Cost (CPU per
/// request) for a recommendation whose mechanism is CPU (a serializer, a GC mode, logging, a framework): a neighbour
/// that takes the core moves throughput but not what a request costs. Throughput or latency for one whose mechanism
/// is waiting (sync against async, thread-pool minimums), where a request costs the same CPU either way. Capacity (the
/// highest rate within an SLO) for an experiment with a <c>capacity:</c> block, and only there.
/// </summary>
public enum DecidingMetric { Rps, Cost, Latency, Capacity }

public static class DecidingMetrics
{
    /// <summary>The metric key of the comparisons a deciding metric reads ("rps", "cpu-per-request", "p99-ms").</summary>
    public static string MetricKey(this DecidingMetric decide) =>
        Metrics.Deciding(decide.ToString().ToLowerInvariant())?.Key ?? Metrics.Rps.Key;

    /// <summary>The <c>decide:</c> key of an experiment file; rps when absent.</summary>
    internal static DecidingMetric Read(NodeReader reader, Dictionary<string, YamlNode> doc)
    {
        var text = reader.OptionalString(doc, "decide");
        return text switch
        {
            null or "rps" => DecidingMetric.Rps,
            "cost" => DecidingMetric.Cost,
            "latency" => DecidingMetric.Latency,
            "capacity" => throw ExperimentLoader.Error(reader.Path, doc["decide"].Start,
                "decide: capacity needs a capacity: block (slo, from, max) saying within what and over which rates."),
            _ => throw ExperimentLoader.Error(reader.Path, doc["decide"].Start,
                $"decide: '{text}' is not a metric that can decide; use rps, cost (CPU per request) or latency (p99)."),
        };
    }
}
