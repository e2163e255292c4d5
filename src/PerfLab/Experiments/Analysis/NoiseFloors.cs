using System.Text.Json;
using PerfLab.Common;
using PerfLab.Results;

namespace PerfLab.Experiments.Analysis;

/// <summary>
/// The noise measured on this machine by A/A runs (`perflab run --aa`): per experiment, scenario and metric, the
/// largest bound of the A/A change interval in percent. A difference must exceed it to be called.
/// </summary>
public sealed class NoiseFloors
{
    private readonly string _file;
    private readonly Dictionary<string, Dictionary<string, double>> _floors;

    private NoiseFloors(string file, Dictionary<string, Dictionary<string, double>> floors)
    {
        _file = file;
        _floors = floors;
    }

    public static string DefaultFile => Path.Combine(PerfLabPaths.CacheRoot, "noise-floors.json");

    public static NoiseFloors Load(string? file = null)
    {
        file ??= DefaultFile;
        try
        {
            var floors = File.Exists(file)
                ? JsonSerializer.Deserialize<Dictionary<string, Dictionary<string, double>>>(File.ReadAllText(file))
                : null;
            return new NoiseFloors(file, floors ?? []);
        }
        catch (JsonException)
        {
            // A damaged file only loses the measured floors; the default applies and the next A/A run rewrites it.
            return new NoiseFloors(file, []);
        }
    }

    public double? For(string experiment, string scenario, Metric metric) =>
        _floors.TryGetValue(experiment, out var perMetric) && perMetric.TryGetValue($"{scenario}|{metric.Key}", out var floor)
            ? floor
            : null;

    /// <summary>The noise floor an A/A comparison shows: the farther end of its interval, in percent.</summary>
    public static double FloorOf(Comparison c) => Math.Max(Math.Abs(c.LowPercent), Math.Abs(c.HighPercent));

    /// <summary>Records the floors an A/A experiment measured and saves them.</summary>
    public void Record(string experiment, IEnumerable<Comparison> aaComparisons)
    {
        var perMetric = new Dictionary<string, double>();
        foreach (var c in aaComparisons.Where(c => double.IsFinite(c.LowPercent) && double.IsFinite(c.HighPercent)))
        {
            perMetric[$"{c.Scenario}|{c.Metric.Key}"] = Math.Round(FloorOf(c), 2);
        }
        if (perMetric.Count == 0)
        {
            return;
        }
        _floors[experiment] = perMetric;
        Directory.CreateDirectory(Path.GetDirectoryName(_file)!);
        File.WriteAllText(_file, JsonSerializer.Serialize(_floors, new JsonSerializerOptions { WriteIndented = true }));
    }
}
