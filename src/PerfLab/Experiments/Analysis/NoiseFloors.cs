using System.Text.Json;
using PerfLab.Common;
using PerfLab.Results;

namespace PerfLab.Experiments.Analysis;

/// <summary>
/// The machine's A/A spread, the floor a <i>better</i> or <i>worse</i> must clear: every A/A run (`perflab run --aa`)
/// adds the |change| of each of its comparisons to this machine's record, per metric, and the floor is the 95th
/// percentile of what is recorded (5 % until <see cref="MinimumRuns"/> are). Never one A/A interval's far end: an
/// interval of a few blocks is widest exactly when its own blocks disagreed, so one run could set a floor of 1.6 % or
/// 14 % by chance (docs/benchmarks/noise.md); the percentile of many runs' changes is what an identical pair does here.
/// </summary>
public sealed class NoiseFloors
{
    /// <summary>A/A changes recorded before the floor is read from them rather than the default.</summary>
    public const int MinimumRuns = 5;

    /// <summary>The percentile of the recorded |change| that a change must exceed.</summary>
    public const double Percentile = 0.95;

    /// <summary>The most recent changes kept per metric: the machine changes (a new kernel, a new neighbour).</summary>
    public const int Kept = 200;

    private readonly string _file;
    private readonly string _machine;
    private readonly Dictionary<string, Dictionary<string, List<double>>> _spread;

    private NoiseFloors(string file, string machine, Dictionary<string, Dictionary<string, List<double>>> spread)
    {
        _file = file;
        _machine = machine;
        _spread = spread;
    }

    public static string DefaultFile => Path.Combine(PerfLabPaths.CacheRoot, "aa-spread.json");

    /// <param name="machine">Whose record is read and grown (a cache copied to another machine keeps the first one's apart).</param>
    public static NoiseFloors Load(string? file = null, string? machine = null)
    {
        file ??= DefaultFile;
        machine ??= Environment.MachineName;
        try
        {
            var spread = File.Exists(file)
                ? JsonSerializer.Deserialize<Dictionary<string, Dictionary<string, List<double>>>>(File.ReadAllText(file))
                : null;
            return new NoiseFloors(file, machine, spread ?? []);
        }
        catch (JsonException)
        {
            // A damaged file only loses the record; the default applies and the next A/A run starts it again.
            return new NoiseFloors(file, machine, []);
        }
    }

    /// <summary>
    /// The record's key: the metric for the all-scenario figure, the metric per scenario otherwise (fewer requests, wider).
    /// </summary>
    public static string KeyOf(string scenario, Metric metric) => scenario == Metric.AllScenarios ? metric.Key : metric.Key + "|scenario";

    /// <summary>How many A/A changes this machine has recorded for the metric.</summary>
    public int Recorded(string scenario, Metric metric) => Changes(scenario, metric).Count;

    /// <summary>
    /// The floor for a metric: the 95th percentile of the recorded |change|; null until <see cref="MinimumRuns"/> are recorded.
    /// </summary>
    public double? For(string scenario, Metric metric)
    {
        var changes = Changes(scenario, metric);
        return changes.Count >= MinimumRuns ? Math.Round(PercentileOf(changes, Percentile), 2) : null;
    }

    /// <summary>How <see cref="For"/>'s figure was found, in words for the report.</summary>
    public string SourceOf(string scenario, Metric metric) => Recorded(scenario, metric) is var n && n >= MinimumRuns
        ? $"this machine's A/A spread: 95th percentile of {n} A/A changes"
        : $"default: {n} of {MinimumRuns} A/A runs recorded";

    /// <summary>
    /// What a comparison of the metric must clear (the floor, or 5 %) and, for equivalent, lie within (<paramref name="margin"/>).
    /// </summary>
    public VerdictBounds Bounds(string scenario, Metric metric, double margin) => For(scenario, metric) is { } floor
        ? new VerdictBounds(floor, SourceOf(scenario, metric), margin)
        : new VerdictBounds(VariantStatistics.DefaultNoiseFloorPercent, SourceOf(scenario, metric), margin);

    /// <summary>
    /// The <paramref name="p"/> quantile, interpolated between the order statistics (Hyndman and Fan's type 7, as numpy
    /// and R's default): of 5 values, the 95th percentile lies 80 % of the way from the 4th to the 5th.
    /// </summary>
    public static double PercentileOf(IReadOnlyList<double> values, double p)
    {
        var sorted = values.Order().ToList();
        var position = (sorted.Count - 1) * p;
        var below = (int)Math.Floor(position);
        var above = Math.Min(below + 1, sorted.Count - 1);
        return sorted[below] + ((position - below) * (sorted[above] - sorted[below]));
    }

    /// <summary>Adds an A/A run's changes (each comparison's |change|, in percent) to this machine's record and saves it.</summary>
    public void Record(IEnumerable<Comparison> aaComparisons)
    {
        var added = false;
        foreach (var c in aaComparisons.Where(c => double.IsFinite(c.ChangePercent)))
        {
            var mine = Mine();
            var key = KeyOf(c.Scenario, c.Metric);
            if (!mine.TryGetValue(key, out var changes))
            {
                mine[key] = changes = [];
            }
            changes.Add(Math.Round(Math.Abs(c.ChangePercent), 3));
            if (changes.Count > Kept)
            {
                changes.RemoveRange(0, changes.Count - Kept);
            }
            added = true;
        }
        if (!added)
        {
            return;
        }
        Directory.CreateDirectory(Path.GetDirectoryName(Path.GetFullPath(_file))!);
        File.WriteAllText(_file, JsonSerializer.Serialize(_spread, new JsonSerializerOptions { WriteIndented = true }));
    }

    private IReadOnlyList<double> Changes(string scenario, Metric metric) =>
        _spread.TryGetValue(_machine, out var mine) && mine.TryGetValue(KeyOf(scenario, metric), out var changes) ? changes : [];

    private Dictionary<string, List<double>> Mine()
    {
        if (!_spread.TryGetValue(_machine, out var mine))
        {
            _spread[_machine] = mine = [];
        }
        return mine;
    }
}

/// <summary>
/// The two figures a verdict needs: <paramref name="FloorPercent"/>, which a better or worse change must exceed (the
/// machine's A/A spread), and <paramref name="MarginPercent"/>, which an equivalent interval must lie within (the user's).
/// </summary>
public sealed record VerdictBounds(double FloorPercent, string FloorSource, double MarginPercent)
{
    /// <summary>The margin when the user states none.</summary>
    public const double DefaultMarginPercent = 5;
}
