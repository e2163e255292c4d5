using PerfLab.Results;
using YamlDotNet.RepresentationModel;

namespace PerfLab.Experiments.Definitions;

/// <summary>A claim of an experiment file, checked against its variants, its scenarios and the metric catalog.</summary>
internal static class ClaimReader
{
    public static ClaimDefinition Read(NodeReader reader, YamlNode node, List<VariantDefinition> variants,
        List<ScenarioDefinition> scenarios, string baseline)
    {
        var map = reader.Mapping(node, "a claim", ["text", "variant", "against", "metric", "scenario", "seedFigure", "seedChange"]);
        var variant = reader.RequiredString(map, node, "variant");
        var against = reader.OptionalString(map, "against") ?? baseline;
        foreach (var (key, value) in new[] { ("variant", variant), ("against", against) })
        {
            if (variants.All(v => v.Name != value))
            {
                throw ExperimentLoader.Error(reader.Path, map[key].Start, $"claim {key} '{value}' is not one of the variants.");
            }
        }
        var named = reader.RequiredString(map, node, "metric");
        var metric = Metrics.Comparable.FirstOrDefault(m => m.Key == named)
            ?? throw ExperimentLoader.Error(reader.Path, map["metric"].Start,
                $"metric '{named}' is not one of {string.Join(", ", Metrics.Comparable.Select(m => m.Key))}.");
        var scenario = reader.OptionalString(map, "scenario") ?? "all";
        if (scenario != "all" && scenarios.All(s => s.Name != scenario))
        {
            throw ExperimentLoader.Error(reader.Path, map["scenario"].Start,
                $"claim scenario '{scenario}' is not 'all' or one of the scenarios.");
        }
        return new ClaimDefinition
        {
            Text = reader.RequiredString(map, node, "text"),
            Variant = variant,
            Against = against,
            Metric = metric,
            Scenario = scenario,
            SeedFigure = reader.RequiredString(map, node, "seedFigure"),
            SeedChangePercent = reader.RequiredDouble(map, node, "seedChange"),
        };
    }
}
