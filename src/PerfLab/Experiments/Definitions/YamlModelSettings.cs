using PerfLab.Load;
using YamlDotNet.RepresentationModel;

namespace PerfLab.Experiments.Definitions;

/// <summary>A scenario's mapping as a load model reads its settings, with errors placed at the file's line and column.</summary>
internal sealed class YamlModelSettings(NodeReader reader, Dictionary<string, YamlNode> map, YamlNode node) : IModelSettings
{
    public int Count(string key, int max) => reader.RequiredInt(map, node, key, 1, max);

    public long Size(string key) => reader.RequiredSize(map, node, key);

    public TimeSpan RoundTrip(string key) => reader.RequiredRtt(map, node, key);

    public Exception Invalid(string key, string message) => ExperimentLoader.Error(reader.Path, map[key].Start, message);

    /// <summary>A scenario's <c>model:</c> and the keys that model reads, through its entry in <see cref="LoadModel.Cases"/>.</summary>
    public static LoadModel ReadModel(NodeReader reader, Dictionary<string, YamlNode> map, YamlNode node)
    {
        var modelText = reader.RequiredString(map, node, "model");
        var reading = LoadModel.Cases.FirstOrDefault(r => string.Equals(r.Kind, modelText, StringComparison.OrdinalIgnoreCase))
            ?? throw ExperimentLoader.Error(reader.Path, map["model"].Start,
                $"model '{modelText}' is not one of {string.Join(", ", LoadModel.Kinds)}.");
        return reading.Read(new YamlModelSettings(reader, map, node));
    }
}
