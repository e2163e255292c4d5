using System.Globalization;
using PerfLab.Common;
using PerfLab.Results;
using YamlDotNet.RepresentationModel;

namespace PerfLab.Experiments.Definitions;

/// <summary>
/// An experiment file's <c>capacity:</c> block (<c>slo</c>, <c>errors</c>, <c>from</c>, <c>max</c>, <c>precision</c>) and
/// what it asks of the rest of the file: one scenario, which takes its rates from the block (no <c>model:</c> of its own),
/// no sweep, no slots (a search runs in one app process per variant), and the verdict decided on the capacity.
/// </summary>
internal static class CapacityReader
{
    public const string Key = "capacity";

    /// <summary>The most a bracket may be left open, relative to the rate that held.</summary>
    private const double MostPrecisionPercent = 50;

    public static CapacityDefinition? Read(NodeReader reader, Dictionary<string, YamlNode> doc)
    {
        if (!doc.TryGetValue(Key, out var node))
        {
            return null;
        }
        var map = reader.Mapping(node, "capacity", ["slo", "errors", "from", "max", "precision"]);
        CapacitySlo slo;
        try
        {
            slo = CapacitySlo.Parse(reader.RequiredString(map, node, "slo"), reader.OptionalString(map, "errors"), "slo", "errors");
        }
        catch (PerfLabException ex) when (!ex.Message.StartsWith(reader.Path, StringComparison.Ordinal))
        {
            var at = ex.Message.StartsWith("errors", StringComparison.Ordinal) ? map["errors"] : map["slo"];
            throw ExperimentLoader.Error(reader.Path, at.Start, $"capacity {ex.Message}");
        }
        var from = Rate(reader, map, node, "from");
        var max = Rate(reader, map, node, "max");
        if (max < from)
        {
            throw ExperimentLoader.Error(reader.Path, map["max"].Start,
                string.Create(CultureInfo.InvariantCulture,
                    $"capacity max ({max:0.##}) is below from ({from:0.##}): give a range that rises."));
        }
        var precision = reader.OptionalPercent(map, "precision") ?? 5;
        if (precision > MostPrecisionPercent)
        {
            throw ExperimentLoader.Error(reader.Path, map["precision"].Start,
                $"capacity precision is the bracket's width the bisection stops at: at most {MostPrecisionPercent:0} %, like 5%.");
        }
        return new CapacityDefinition(slo, new CapacityRange(from, max, precision / 100));
    }

    /// <summary>
    /// A capacity experiment's scenario: its rates are the search's, starting at the block's <c>from</c>, so it names no
    /// model of its own.
    /// </summary>
    public static Load.LoadModel ScenarioModel(NodeReader reader, Dictionary<string, YamlNode> scenario, CapacityDefinition capacity,
        IEnumerable<string> modelKeys)
    {
        if (modelKeys.Prepend("model").FirstOrDefault(scenario.ContainsKey) is { } key)
        {
            throw ExperimentLoader.Error(reader.Path, scenario[key].Start,
                $"'{key}': a capacity experiment's scenario takes its rates from the capacity block (open model, from its 'from' " +
                "doubling up to 'max'): leave out model and its keys.");
        }
        return Load.LoadPlanBuilder.Open(capacity.Range.From);
    }

    /// <summary>The experiment, once its capacity block agrees with the rest of the file.</summary>
    public static ExperimentDefinition Checked(NodeReader reader, Dictionary<string, YamlNode> doc, ExperimentDefinition experiment)
    {
        if (experiment.Capacity is null)
        {
            return experiment;
        }
        var at = doc[Key].Start;
        if (experiment.Scenarios.Count != 1)
        {
            throw ExperimentLoader.Error(reader.Path, at,
                "a capacity experiment searches one scenario's capacity: expected exactly one scenario, "
                + $"found {experiment.Scenarios.Count}.");
        }
        if (experiment.Sweep is not null)
        {
            throw ExperimentLoader.Error(reader.Path, doc["sweep"].Start,
                "a capacity experiment cannot also sweep a condition: give one of capacity and sweep.");
        }
        if (experiment.Profiles.FirstOrDefault(p => p.Value.Slots is not null) is { Value: not null } slotted)
        {
            throw ExperimentLoader.Error(reader.Path, at,
                $"profile '{ProfileNames.Key(slotted.Key)}' has slots: a capacity search runs in one app process per variant, each step "
                + "after its own warm-up; leave out slots.");
        }
        return experiment;
    }

    /// <summary><c>decide:</c> of a capacity experiment: the capacity (written or not); other metrics decide other experiments.</summary>
    public static Metric Decide(NodeReader reader, Dictionary<string, YamlNode> doc, CapacityDefinition? capacity)
    {
        if (capacity is null)
        {
            return DecidingMetrics.Read(reader, doc);
        }
        var word = reader.OptionalString(doc, DecidingMetrics.Key);
        return word is null || Metrics.Deciding(word) == Metrics.CapacityRps
            ? Metrics.CapacityRps
            : throw ExperimentLoader.Error(reader.Path, doc[DecidingMetrics.Key].Start,
                "decide: a capacity experiment is decided on its capacity; leave out decide (or write decide: capacity).");
    }

    private static double Rate(NodeReader reader, Dictionary<string, YamlNode> map, YamlNode node, string key)
    {
        var rate = reader.RequiredDouble(map, node, key);
        return rate > 0 && rate <= MaxRate
            ? rate
            : throw ExperimentLoader.Error(reader.Path, map[key].Start,
                $"capacity {key} is a rate in requests per second: a number above 0 and at most {MaxRate:0}.");
    }

    /// <summary>The open model's own bound on a rate.</summary>
    private const double MaxRate = 1_000_000;
}
