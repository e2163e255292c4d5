using System.Globalization;
using System.Text.Json;
using System.Text.Json.Serialization;

namespace PerfLab.Results;

/// <summary>What perflab does with a metric besides reading it (one role each).</summary>
public enum MetricRole
{
    /// <summary>Per scenario: summarized, compared against the baseline and shown in the report's tables.</summary>
    Compared,
    /// <summary>Per scenario: a threshold can gate it, but it is neither summarized nor compared.</summary>
    GateOnly,
    /// <summary>A run's one figure (a burst's or upload's batch time, a capacity search's capacity): summarized and compared.</summary>
    Batch,
    /// <summary>A counter's average over the measured window (the dotnet-counters name is the key).</summary>
    Counter,
    /// <summary>A per-request cost computed from counters and throughput.</summary>
    Efficiency,
    /// <summary>A whole run's figure compared against the baseline beside the scenarios' (CPU per request from the kernel).</summary>
    RunCompared,
}

/// <summary>
/// One figure perflab reads from a run, with everything every part needs to treat it alike: the key results.json and
/// the comparisons use, the header and unit the reports show, which way is better, the decimals, the spellings a
/// threshold may use, and how to read it from one run. The catalog (<see cref="Metrics"/>) holds every entry; a new
/// metric is a new entry there plus its reader. An entry is the metric's one identity from the experiment file to
/// results.json: two entries are the same metric when their keys are, and results.json holds the key.
/// </summary>
[JsonConverter(typeof(MetricKeyConverter))]
public sealed record Metric
{
    /// <summary>The key in results.json, comparisons and claims: "rps", "p99-ms", "cpu-ms-per-request".</summary>
    public required string Key { get; init; }
    /// <summary>The short name shown in tables and sentences: "RPS", "p99 (ms)".</summary>
    public required string Header { get; init; }
    /// <summary>The header without its unit, for a change in percent: "RPS", "p99", "CPU per request".</summary>
    public string Name => Header.Split(" (")[0];
    /// <summary>The name where a summary row must fit 120 characters: "full-speed CPU/req"; <see cref="Name"/> by default.</summary>
    public string? ShortName { get; init; }
    /// <summary>The unit a figure is shown in: "RPS", "ms", "MB/s".</summary>
    public required string Unit { get; init; }
    public required MetricRole Role { get; init; }
    public bool HigherIsBetter { get; init; }
    public int Decimals { get; init; } = 2;
    /// <summary>Multiplies a stored figure for display (alloc-rate is stored in bytes per second, shown in MB/s).</summary>
    public double Scale { get; init; } = 1;
    /// <summary>The names a threshold may use for it, k6's first ("p99", "mean").</summary>
    public IReadOnlyList<string> ThresholdNames { get; init; } = [];
    /// <summary>
    /// An experiment's own figure, compared first (the summary's, and the deciding one unless decide: names another):
    /// throughput, a burst's batch time, or a capacity experiment's capacity.
    /// </summary>
    public bool Primary { get; init; }
    /// <summary>
    /// The word of <c>decide:</c> (and of a <c>WORD-change</c> gate) that names it: rps, cost, latency, capacity; null for a
    /// metric that cannot decide an experiment.
    /// </summary>
    public string? DecideWord { get; init; }
    /// <summary>
    /// What an experiment file must have before this metric may decide it, in words ("a capacity: block ..."); null when
    /// any experiment may ask for it.
    /// </summary>
    public string? DecideNeeds { get; init; }
    /// <summary>A change in words, {0} the amount: "serves {0} more requests than"; by default "has a {0} higher HEADER than".</summary>
    public string? MoreWords { get; init; }
    /// <summary>A change down in words: "serves {0} fewer requests than".</summary>
    public string? LessWords { get; init; }

    /// <summary>A change against <paramref name="baseline"/> in words: "serves 6.6 % more requests than sync".</summary>
    public string Describe(double changePercent, string baseline)
    {
        var amount = Math.Abs(changePercent).ToString("0.0", CultureInfo.InvariantCulture) + " %";
        var words = changePercent >= 0 ? MoreWords ?? $"has a {{0}} higher {Header} than" : LessWords ?? $"has a {{0}} lower {Header} than";
        return string.Format(CultureInfo.InvariantCulture, words, amount) + " " + baseline;
    }

    /// <summary>A scenario's figure in one run; null for a metric of the whole run.</summary>
    public Func<ScenarioStats, double>? OfScenario { get; init; }
    /// <summary>All scenarios of a run together (the "all" row); by default the worst scenario's figure.</summary>
    public Func<IReadOnlyList<ScenarioStats>, double>? OfScenarios { get; init; }
    /// <summary>A figure of the whole run (batches, counters, efficiency); null for a scenario metric.</summary>
    public Func<RunRecord, double>? OfRun { get; init; }
    /// <summary>
    /// The figure of one measured window of a run (<see cref="CpuWindow"/>: a slot, or a short window, read within its
    /// run's <see cref="CpuCost"/>) for a metric the windows carry, CPU per request; null for the others, and for a window
    /// the metric leaves out. Its spread inside the blocks bounds a comparison's interval from below (<c>SlotSpread</c>).
    /// </summary>
    public Func<CpuCost, CpuWindow, double?>? OfWindow { get; init; }

    /// <summary>The scenario name that stands for all scenarios of a run together.</summary>
    public const string AllScenarios = "all";

    /// <summary>One run's figure for a scenario, or for all scenarios together ("all"); NaN when the run has none.</summary>
    public double Read(RunRecord run, string scenario)
    {
        if (OfRun is { } ofRun)
        {
            return ofRun(run);
        }
        var stats = scenario == AllScenarios ? run.Scenarios : run.Scenarios.Where(s => s.Scenario == scenario).ToList();
        return stats.Count == 0 ? double.NaN : Combine(stats);
    }

    /// <summary>Several scenarios' figures as one (one scenario's own figure when given one).</summary>
    public double Combine(IReadOnlyList<ScenarioStats> stats) =>
        OfScenarios is { } combine ? combine(stats)
        : OfScenario is { } one ? stats.Max(one)
        : double.NaN;

    /// <summary>A figure in this metric's unit, invariant culture: "231.42 ms", "1204.3 RPS".</summary>
    public string Format(double value) => !double.IsFinite(value)
        ? "no figure"
        : (value * Scale).ToString("F" + Decimals.ToString(CultureInfo.InvariantCulture), CultureInfo.InvariantCulture) + " " + Unit;

    /// <summary>Whether a single scenario can be asked of this metric: every scenario metric, or only "all" for a run metric.</summary>
    public bool PerScenario => OfRun is null;

    /// <summary>The same metric: the same key (an entry and a copy of it made with <c>with</c> are one metric).</summary>
    public bool Equals(Metric? other) => other is not null && other.Key == Key;

    public override int GetHashCode() => StringComparer.Ordinal.GetHashCode(Key);

    /// <summary>The key, as messages and results.json name the metric.</summary>
    public override string ToString() => Key;
}

/// <summary>A metric in results.json is its key, read back into the catalog's entry.</summary>
internal sealed class MetricKeyConverter : JsonConverter<Metric>
{
    public override Metric Read(ref Utf8JsonReader reader, Type typeToConvert, JsonSerializerOptions options)
    {
        var key = reader.GetString();
        return Metrics.Find(key ?? "") ?? throw new JsonException($"metric '{key}' is not in this perflab's catalog");
    }

    public override void Write(Utf8JsonWriter writer, Metric value, JsonSerializerOptions options) => writer.WriteStringValue(value.Key);
}
