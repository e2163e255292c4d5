using System.Globalization;
using PerfLab.Common;
using YamlDotNet.RepresentationModel;

namespace PerfLab.Experiments.Definitions;

/// <summary>Typed reads of YAML nodes that fail with the node's position.</summary>
internal sealed class NodeReader(string path)
{
    public string Path { get; } = path;

    public Dictionary<string, YamlNode> Mapping(YamlNode node, string what, IReadOnlyList<string> allowed)
    {
        if (node is not YamlMappingNode mapping)
        {
            throw ExperimentLoader.Error(Path, node.Start, $"expected {what} as a mapping (key: value lines).");
        }
        var result = new Dictionary<string, YamlNode>(StringComparer.Ordinal);
        foreach (var (keyNode, value) in mapping.Children)
        {
            var key = ((YamlScalarNode)keyNode).Value ?? "";
            if (!allowed.Contains(key))
            {
                throw ExperimentLoader.Error(Path, keyNode.Start,
                    $"unknown key '{key}' in {what}; expected one of {string.Join(", ", allowed)}.");
            }
            result[key] = value;
        }
        return result;
    }

    public YamlNode Required(Dictionary<string, YamlNode> map, YamlNode parent, string key) =>
        map.TryGetValue(key, out var node) ? node : throw ExperimentLoader.Error(Path, parent.Start, $"missing required key '{key}'.");

    public string RequiredString(Dictionary<string, YamlNode> map, YamlNode parent, string key)
    {
        var node = Required(map, parent, key);
        return node is YamlScalarNode { Value: { Length: > 0 } value }
            ? value
            : throw ExperimentLoader.Error(Path, node.Start, $"expected '{key}' to be a non-empty text value.");
    }

    public string? OptionalString(Dictionary<string, YamlNode> map, string key) =>
        map.TryGetValue(key, out var node)
            ? node is YamlScalarNode scalar
                ? scalar.Value
                : throw ExperimentLoader.Error(Path, node.Start, $"expected '{key}' to be a text value.")
            : null;

    public int RequiredInt(Dictionary<string, YamlNode> map, YamlNode parent, string key, int min, int max)
    {
        var node = Required(map, parent, key);
        if (node is YamlScalarNode scalar && int.TryParse(scalar.Value, NumberStyles.Integer, CultureInfo.InvariantCulture, out var value)
            && value >= min && value <= max)
        {
            return value;
        }
        throw ExperimentLoader.Error(Path, node.Start, $"expected '{key}' to be a whole number from {min} to {max}.");
    }

    public double RequiredDouble(Dictionary<string, YamlNode> map, YamlNode parent, string key)
    {
        var node = Required(map, parent, key);
        return node is YamlScalarNode scalar
            && double.TryParse(scalar.Value, NumberStyles.Float, CultureInfo.InvariantCulture, out var value)
            ? value
            : throw ExperimentLoader.Error(Path, node.Start, $"expected '{key}' to be a number (e.g. 22 or -11.5).");
    }

    public TimeSpan RequiredDuration(Dictionary<string, YamlNode> map, YamlNode parent, string key, bool allowZero)
    {
        var node = Required(map, parent, key);
        if (node is YamlScalarNode scalar && DurationText.TryParse(scalar.Value, out var value)
            && (allowZero ? value >= TimeSpan.Zero : value > TimeSpan.Zero))
        {
            return value;
        }
        throw ExperimentLoader.Error(Path, node.Start,
            $"expected '{key}' to be a duration like 500ms, 10s or 3m{(allowZero ? "" : ", above zero")}.");
    }

    /// <summary>A size like 96KB, 16MB or 1GB (binary multiples: KB = 1024 bytes, as Kestrel's windows are written).</summary>
    public long RequiredSize(Dictionary<string, YamlNode> map, YamlNode parent, string key)
    {
        var node = Required(map, parent, key);
        if (node is YamlScalarNode scalar && Sizes.TryParse(scalar.Value, out var bytes) && bytes >= Sizes.MinUpload
            && bytes <= Sizes.MaxUpload)
        {
            return bytes;
        }
        throw ExperimentLoader.Error(Path, node.Start, $"expected '{key}' to be a size from 1KB to 1GB, like 96KB or 108MB.");
    }

    public TimeSpan RequiredRtt(Dictionary<string, YamlNode> map, YamlNode parent, string key)
    {
        var node = Required(map, parent, key);
        if (node is YamlScalarNode scalar && DurationText.TryParse(scalar.Value, out var rtt) && rtt >= TimeSpan.Zero
            && rtt <= Sizes.MaxRtt)
        {
            return rtt;
        }
        throw ExperimentLoader.Error(Path, node.Start,
            $"expected '{key}' to be a round-trip time from 0ms to {DurationText.Format(Sizes.MaxRtt)}, like 10ms.");
    }

    public IReadOnlyList<YamlNode> Sequence(Dictionary<string, YamlNode> map, YamlNode parent, string key)
    {
        var node = Required(map, parent, key);
        return node is YamlSequenceNode sequence
            ? sequence.Children.ToList()
            : throw ExperimentLoader.Error(Path, node.Start, $"expected '{key}' to be a list (lines starting with '- ').");
    }

    public IReadOnlyDictionary<string, string> StringMap(Dictionary<string, YamlNode> map, string key)
    {
        if (!map.TryGetValue(key, out var node))
        {
            return new Dictionary<string, string>();
        }
        if (node is not YamlMappingNode mapping)
        {
            throw ExperimentLoader.Error(Path, node.Start, $"expected '{key}' to be a mapping of names to values.");
        }
        var result = new Dictionary<string, string>(StringComparer.Ordinal);
        foreach (var (k, v) in mapping.Children)
        {
            if (v is not YamlScalarNode { Value: not null } scalar)
            {
                throw ExperimentLoader.Error(Path, v.Start, $"expected a text value for '{((YamlScalarNode)k).Value}' under '{key}'.");
            }
            result[((YamlScalarNode)k).Value ?? ""] = scalar.Value;
        }
        return result;
    }

    public bool OptionalBool(Dictionary<string, YamlNode> map, string key)
    {
        if (!map.TryGetValue(key, out var node))
        {
            return false;
        }
        return node is YamlScalarNode { Value: "true" or "false" } scalar
            ? scalar.Value == "true"
            : throw ExperimentLoader.Error(Path, node.Start, $"expected '{key}' to be true or false.");
    }

    /// <summary>A percentage like 5% (the sign optional), above 0 and below 100.</summary>
    public double? OptionalPercent(Dictionary<string, YamlNode> map, string key)
    {
        if (!map.TryGetValue(key, out var node))
        {
            return null;
        }
        var text = (node as YamlScalarNode)?.Value?.Trim().TrimEnd('%').Trim();
        return double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out var value) && value > 0 && value < 100
            ? value
            : throw ExperimentLoader.Error(Path, node.Start, $"expected '{key}' to be a percentage above 0 and below 100, like 5%.");
    }
}
