using PerfLab.Common;
using PerfLab.Load;
using YamlDotNet.RepresentationModel;

namespace PerfLab.Experiments.Definitions;

/// <summary>
/// A scenario's request beyond its URL (method, headers, body, body-file, expect) and an experiment's thresholds:
/// the keys of experiments/README.md that describe what is sent and what must hold, each error at its node.
/// </summary>
internal static class RequestReader
{
    /// <summary>The scenario keys read here.</summary>
    public static readonly IReadOnlyList<string> ScenarioKeys = ["method", "headers", "body", "body-file", "expect"];

    public static RequestSpec Read(NodeReader reader, Dictionary<string, YamlNode> map)
    {
        if (!ScenarioKeys.Any(map.ContainsKey))
        {
            return RequestSpec.Get;
        }
        if (map.ContainsKey("body") && map.ContainsKey("body-file"))
        {
            throw ExperimentLoader.Error(reader.Path, map["body-file"].Start, "give either body or body-file, not both.");
        }
        var body = reader.OptionalString(map, "body") is { } text ? RequestSpec.Utf8(text) : ReadBodyFile(reader, map);
        var method = reader.OptionalString(map, "method")?.ToUpperInvariant() ?? (body is null ? "GET" : "POST");
        var headers = reader.StringMap(map, "headers").ToList();
        var spec = new RequestSpec
        {
            Method = method,
            Headers = headers,
            Body = body,
            Check = map.TryGetValue("expect", out var expect) ? ReadExpect(reader, expect) : null,
        };
        At(reader, map.GetValueOrDefault("headers") ?? map.GetValueOrDefault("method") ?? map.Values.First(), spec.Validate);
        return spec;
    }

    /// <summary>A body file, relative to the experiment file's folder, read once when the file is loaded.</summary>
    private static byte[]? ReadBodyFile(NodeReader reader, Dictionary<string, YamlNode> map)
    {
        if (reader.OptionalString(map, "body-file") is not { } file)
        {
            return null;
        }
        var path = Path.GetFullPath(file, Path.GetDirectoryName(Path.GetFullPath(reader.Path))!);
        return File.Exists(path)
            ? File.ReadAllBytes(path)
            : throw ExperimentLoader.Error(reader.Path, map["body-file"].Start, $"body-file '{file}' does not exist (looked for {path}).");
    }

    /// <summary>expect: { status: 201 | "200,201" | 2xx | [200, 201], json: "$.id=5" | ["$.id=5", "$.name"] }</summary>
    private static ResponseCheck ReadExpect(NodeReader reader, YamlNode node)
    {
        var map = reader.Mapping(node, "expect", ["status", "json"]);
        var statuses = map.TryGetValue("status", out var statusNode)
            ? At(reader, statusNode, () => StatusSet.Parse(Scalars(reader, statusNode, "status")))
            : null;
        var json = map.TryGetValue("json", out var jsonNode)
            ? At(reader, jsonNode, () => Scalars(reader, jsonNode, "json").Select(JsonExpectation.Parse).ToList())
            : [];
        if (statuses is null && json.Count == 0)
        {
            throw ExperimentLoader.Error(reader.Path, node.Start, "expect needs status, json or both.");
        }
        return new ResponseCheck(statuses, json);
    }

    /// <summary>
    /// thresholds: ["p99&lt;250ms", "errors&lt;1%", "order: no-worse"], checked after the run (see
    /// <see cref="Results.Threshold"/>).
    /// </summary>
    public static IReadOnlyList<Results.Threshold> ReadThresholds(NodeReader reader, Dictionary<string, YamlNode> doc,
        IReadOnlyList<ScenarioDefinition> scenarios)
    {
        if (!doc.TryGetValue("thresholds", out var node))
        {
            return [];
        }
        var thresholds = At(reader, node, () => Scalars(reader, node, "thresholds").Select(Results.Threshold.Parse).ToList());
        if (thresholds.FirstOrDefault(t => t.Scenario is { } s && scenarios.All(x => x.Name != s)) is { } unknown)
        {
            throw ExperimentLoader.Error(reader.Path, node.Start,
                $"threshold '{unknown.Text}' names scenario '{unknown.Scenario}', which is not one "
                    + $"of {string.Join(", ", scenarios.Select(s => s.Name))}.");
        }
        return thresholds;
    }

    private static List<string> Scalars(NodeReader reader, YamlNode node, string key) => node switch
    {
        YamlScalarNode { Value: { Length: > 0 } value } => [value],
        YamlSequenceNode sequence => [.. sequence.Children.Select(c => c is YamlScalarNode { Value: { Length: > 0 } v }
            ? v
            : throw ExperimentLoader.Error(reader.Path, c.Start, $"expected each item of '{key}' to be a text value."))],
        _ => throw ExperimentLoader.Error(reader.Path, node.Start, $"expected '{key}' to be a value or a list of values."),
    };

    /// <summary>Runs a parse whose errors (usage errors without a position) are reported at <paramref name="node"/>.</summary>
    private static T At<T>(NodeReader reader, YamlNode node, Func<T> parse)
    {
        try
        {
            return parse();
        }
        catch (PerfLabException ex) when (ex.ExitCode == ExitCode.Usage && !ex.Message.StartsWith(reader.Path, StringComparison.Ordinal))
        {
            throw ExperimentLoader.Error(reader.Path, node.Start, ex.Message);
        }
    }

    private static void At(NodeReader reader, YamlNode node, Action check) => At(reader, node, () =>
    {
        check();
        return true;
    });
}
