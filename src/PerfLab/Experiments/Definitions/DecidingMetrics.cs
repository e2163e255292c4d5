using PerfLab.Results;
using YamlDotNet.RepresentationModel;

namespace PerfLab.Experiments.Definitions;

/// <summary>
/// Which figure decides an experiment's verdict (<c>decide:</c>); the report shows the others beside it. Cost (CPU per
/// request) for a recommendation whose mechanism is CPU (a serializer, a GC mode, logging, a framework): a neighbour
/// that takes the core moves throughput but not what a request costs. Throughput or latency for one whose mechanism
/// is waiting (sync against async, thread-pool minimums), where a request costs the same CPU either way. Capacity (the
/// highest rate within an SLO) for an experiment with a <c>capacity:</c> block, and only there. The words are the
/// catalog's (<see cref="Metric.DecideWord"/>): a metric that can decide is an entry there, not a case here.
/// </summary>
internal static class DecidingMetrics
{
    public const string Key = "decide";

    /// <summary>The <c>decide:</c> key of an experiment file as the catalog's metric; RPS when absent.</summary>
    public static Metric Read(NodeReader reader, Dictionary<string, YamlNode> doc)
    {
        if (reader.OptionalString(doc, Key) is not { } word)
        {
            return Metrics.Rps;
        }
        var metric = Metrics.Deciding(word)
            ?? throw ExperimentLoader.Error(reader.Path, doc[Key].Start,
                $"decide: '{word}' is not a metric that can decide; use {Metrics.DecideSpellings()}.");
        return metric.DecideNeeds is { } needs
            ? throw ExperimentLoader.Error(reader.Path, doc[Key].Start, $"decide: {word} needs {needs}.")
            : metric;
    }
}
