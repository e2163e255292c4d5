using System.Globalization;
using PerfLab.Common;
using PerfLab.Results;
using YamlDotNet.RepresentationModel;

namespace PerfLab.Experiments.Definitions;

/// <summary>
/// The conditions' keys of an experiment file: `database: { rtt: 1ms }` and `cores: 1` on the experiment or a variant,
/// `sweep: { condition, values }` and `default: false` on the experiment, and the checks that tie them together
/// (a sweep's condition is not also fixed elsewhere, its values ascend, ...).
/// </summary>
internal static class ConditionsReader
{
    /// <summary>The keys read here, allowed on the experiment's top level.</summary>
    public static readonly IReadOnlyList<string> ExperimentKeys = ["database", "cores", "sweep", "default"];

    /// <summary>The keys read here, allowed on a variant.</summary>
    public static readonly IReadOnlyList<string> VariantKeys = ["database", "cores"];

    private const int MaxCores = 1024;

    public static Conditions Read(NodeReader reader, Dictionary<string, YamlNode> map)
    {
        double? rtt = null;
        if (map.TryGetValue("database", out var databaseNode))
        {
            var database = reader.Mapping(databaseNode, "database", ["rtt"]);
            rtt = reader.RequiredRtt(database, databaseNode, "rtt").TotalMilliseconds;
        }
        int? cores = map.ContainsKey("cores") ? reader.RequiredInt(map, map["cores"], "cores", 1, MaxCores) : null;
        return new Conditions { DatabaseRttMs = rtt, Cores = cores };
    }

    /// <summary>`default: false` leaves an experiment out of a `perflab run` without names.</summary>
    public static bool RunsByDefault(NodeReader reader, Dictionary<string, YamlNode> map) =>
        !map.ContainsKey("default") || reader.OptionalBool(map, "default");

    public static SweepDefinition? ReadSweep(NodeReader reader, Dictionary<string, YamlNode> doc)
    {
        if (!doc.TryGetValue("sweep", out var node))
        {
            return null;
        }
        var map = reader.Mapping(node, "sweep", ["condition", "values"]);
        var name = reader.RequiredString(map, node, "condition");
        if (!ConditionNames.ByName.TryGetValue(name, out var kind))
        {
            throw ExperimentLoader.Error(reader.Path, map["condition"].Start,
                $"sweep condition '{name}' is not one of {string.Join(", ", ConditionNames.ByName.Keys)}.");
        }
        var items = reader.Sequence(map, node, "values");
        if (items.Count < 2)
        {
            throw ExperimentLoader.Error(reader.Path, map["values"].Start,
                "a sweep needs at least two values (e.g. values: [0ms, 1ms, 5ms]).");
        }
        var values = items.Select(item => Value(reader, kind, item)).ToList();
        for (var i = 1; i < values.Count; i++)
        {
            if (values[i] <= values[i - 1])
            {
                throw ExperimentLoader.Error(reader.Path, items[i].Start,
                    $"sweep values must ascend, each once: {ConditionNames.Value(kind, values[i])} "
                        + $"follows {ConditionNames.Value(kind, values[i - 1])}.");
            }
        }
        return new SweepDefinition(kind, values);
    }

    private static double Value(NodeReader reader, ConditionKind kind, YamlNode item)
    {
        var text = (item as YamlScalarNode)?.Value?.Trim() ?? "";
        if (kind == ConditionKind.DatabaseRtt)
        {
            // A unit is required: "1" would be one second to DurationText, never what a database RTT means.
            var hasUnit = text.Length > 0 && char.IsAsciiLetter(text[^1]);
            return (hasUnit || text == "0") && DurationText.TryParse(text, out var rtt) && rtt >= TimeSpan.Zero && rtt <= Sizes.MaxRtt
                ? rtt.TotalMilliseconds
                : throw ExperimentLoader.Error(reader.Path, item.Start,
                    $"sweep value '{text}' of database-rtt is not a round-trip time from 0ms "
                        + $"to {DurationText.Format(Sizes.MaxRtt)} with its unit, like 0.5ms.");
        }
        var (min, max) = kind switch
        {
            ConditionKind.Cores => (1, MaxCores),
            ConditionKind.MinThreads => (1, 32767),
            _ => (1, 10_000),
        };
        return int.TryParse(text, NumberStyles.Integer, CultureInfo.InvariantCulture, out var number) && number >= min && number <= max
            ? number
            : throw ExperimentLoader.Error(reader.Path, item.Start,
                $"sweep value '{text}' of {ConditionNames.Name(kind)} is not a whole number from {min} to {max}.");
    }

    /// <summary>A sweep's condition must be free to vary: not fixed by the experiment, a variant, or (users) absent.</summary>
    public static void CheckSweep(NodeReader reader, Dictionary<string, YamlNode> doc, SweepDefinition? sweep, Conditions conditions,
        IReadOnlyList<VariantDefinition> variants, IReadOnlyList<ScenarioDefinition> scenarios)
    {
        if (sweep is null)
        {
            return;
        }
        var where = doc["sweep"].Start;
        var name = ConditionNames.Name(sweep.Condition);
        if (conditions.Sets(sweep.Condition))
        {
            throw ExperimentLoader.Error(reader.Path, where,
                $"the sweep varies {name}, which the experiment also fixes; remove one of the two.");
        }
        var fixedBy = variants.FirstOrDefault(v => v.Conditions.Sets(sweep.Condition)
            || (sweep.Condition == ConditionKind.MinThreads && v.Settings.Keys.Any(IsMinThreadsSetting)));
        if (fixedBy is not null)
        {
            throw ExperimentLoader.Error(reader.Path, where,
                $"the sweep varies {name}, which variant '{fixedBy.Name}' also sets; remove it from the variant.");
        }
        if (sweep.Condition == ConditionKind.Users && scenarios.All(s => s.Model is not Load.ClosedModel))
        {
            throw ExperimentLoader.Error(reader.Path, where,
                "a users sweep sets the users of closed scenarios, and this experiment has none.");
        }
    }

    private static bool IsMinThreadsSetting(string key) =>
        key.Equals(SweepDefinition.MinThreadsSetting, StringComparison.OrdinalIgnoreCase)
        || key.Equals("Sut:" + SweepDefinition.MinThreadsSetting, StringComparison.OrdinalIgnoreCase);
}
