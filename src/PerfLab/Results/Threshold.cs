using System.Globalization;
using System.Text.RegularExpressions;
using PerfLab.Common;

namespace PerfLab.Results;

/// <summary>
/// A CI gate, written as k6 writes thresholds: <c>p99&lt;250ms</c>, <c>mean&lt;=20ms</c>, <c>rps&gt;1000</c>,
/// <c>errors&lt;1%</c> (or a count, <c>errors&lt;=0</c>), <c>change&gt;-5%</c> (the change of the experiment's deciding
/// metric against the baseline, better positive; in <c>compare-results</c>, B against A; <c>rps-change&gt;-5%</c> or
/// <c>cost-change&gt;-3%</c> name the metric, see <see cref="ChangeGate"/>; each reads the end of the change's 95 % interval
/// least favourable to it, not the point estimate), or <c>no-worse</c> (non-inferiority: the worse end of each deciding
/// change's interval lies within the margin: <c>no-worse(3%)</c>, <c>--margin</c>, <c>margin:</c>, else the noise floor).
/// Latency, RPS and errors hold for every variant and scenario: the median over a variant's successful runs of each
/// run's figure. A scenario name and a colon in front (<c>order: p99&lt;250ms</c>, as k6 tags a threshold) limit a
/// threshold to that scenario; a scoped <c>change</c> reads that scenario's change, a scoped <c>no-worse</c> only its
/// verdicts.
/// </summary>
public sealed partial record Threshold(string Text, string Metric, string Operator, double Value, bool Percent)
{
    /// <summary>The scenario this threshold is limited to; null: every scenario (and the all-scenario figures).</summary>
    public string? Scenario { get; init; }

    /// <summary>Whether the threshold covers <paramref name="scenario"/> (a name, or "all" for the combined figures).</summary>
    public bool Covers(string scenario) => Scenario is null || Scenario == scenario;

    /// <summary>A change threshold's metric when it names one (<c>rps-change</c>); null: the deciding metric.</summary>
    public Metric? ChangeOf { get; init; }

    /// <summary>
    /// No-worse's margin in percent, as stated (<c>no-worse(3%)</c>, <c>--margin</c> or the file's <c>margin:</c>); null:
    /// each comparison's noise floor.
    /// </summary>
    public double? Margin { get; init; }

    /// <summary>Whether the gate reads a change's 95 % interval, which one repetition cannot give.</summary>
    public bool NeedsInterval => Metric is NoWorse or Change;

    /// <summary>This gate with <paramref name="margin"/> as its margin when it is a no-worse without one of its own.</summary>
    public Threshold WithMargin(double? margin) => Metric == NoWorse && Margin is null ? this with { Margin = margin } : this;

    public const string NoWorse = "no-worse";
    public const string Change = "change";
    public const string Errors = "errors";
    /// <summary>CPU per request (the app's and its database backends'), in ms: the median over a variant's runs.</summary>
    public static string CpuPerRequest => Metrics.CpuPerRequest.Key;

    /// <summary>
    /// "capacity>=400": the RPS a capacity search found sustained, read at its interval's lower end (the median of the runs'
    /// lower ends), a plain number.
    /// </summary>
    public static string Capacity => Metrics.CapacityRps.ThresholdNames[0];

    /// <summary>The catalog entry this threshold reads from each run's scenario figures; null for errors, change and no-worse.</summary>
    public Metric? Measured => Metrics.ForThreshold(Metric);

    public static readonly string Syntax =
        $"a threshold is METRIC<VALUE or METRIC>VALUE (also <=, >=): {Metrics.ThresholdSpellings(m => m.Unit == "ms")} with ms or s " +
        "(e.g. p99<250ms), rps>1000, cpu-per-request<1.5ms, capacity>=400 (a capacity search's RPS, its interval's lower "
            + "end), errors<1% or errors<=0, change>-5% (the deciding metric's "
            + "change against the baseline, better positive; rps-change>-5% or cost-change>-3% for one metric; each reads its "
            + "95 % interval's worse end), or no-worse (or no-worse(3%) with a margin of its own)";

    [GeneratedRegex(@"^\s*(?<metric>[a-z][a-z0-9.-]*)\s*(?<op><=|>=|<|>)\s*(?<value>[-+]?[0-9]+(\.[0-9]+)?)\s*(?<unit>ms|s|%)?\s*$",
        RegexOptions.IgnoreCase)]
    private static partial Regex Pattern();

    /// <summary>Throws a usage error that names the threshold and says how to write one.</summary>
    public static Threshold Parse(string text)
    {
        var colon = text.IndexOf(':', StringComparison.Ordinal);
        if (colon < 0)
        {
            return ParseUnscoped(text);
        }
        var scenario = text[..colon].Trim();
        if (scenario.Length == 0 || !scenario.All(c => char.IsAsciiLetterOrDigit(c) || c is '-' or '_' or '.'))
        {
            throw Invalid(text, $"'{scenario}' is not a scenario name; scope a threshold as SCENARIO: "
                + $"METRIC<VALUE (e.g. order: p99<250ms)");
        }
        var inner = ParseUnscoped(text[(colon + 1)..]);
        return inner with { Text = $"{scenario}: {inner.Text}", Scenario = scenario };
    }

    private static Threshold ParseUnscoped(string text)
    {
        if (NoWorsePattern().Match(text) is { Success: true } noWorse)
        {
            return NoWorseOf(text, noWorse.Groups["margin"]);
        }
        var m = Pattern().Match(text);
        if (!m.Success)
        {
            throw Invalid(text, Syntax);
        }
        var metric = m.Groups["metric"].Value.ToLowerInvariant();
        var op = m.Groups["op"].Value;
        var value = double.Parse(m.Groups["value"].Value, NumberStyles.Float, CultureInfo.InvariantCulture);
        var unit = m.Groups["unit"].Value.ToLowerInvariant();
        var clean = $"{metric}{op}{m.Groups["value"].Value}{unit}";
        if (Metrics.ForThreshold(metric) is { Unit: "ms" })
        {
            return unit is "ms" or "s"
                ? new Threshold(clean, metric, op, unit == "s" ? value * 1000 : value, false)
                : throw Invalid(text, $"a latency needs a unit: ms or s (e.g. {metric}{op}250ms)");
        }
        if (metric == CpuPerRequest)
        {
            return unit is "ms" or "s"
                ? new Threshold(clean, metric, op, unit == "s" ? value * 1000 : value, false)
                : throw Invalid(text, "cpu-per-request needs a unit: ms or s (e.g. cpu-per-request<1.5ms)");
        }
        if (metric == Capacity)
        {
            return unit.Length == 0
                ? new Threshold(clean, metric, op, value, false)
                : throw Invalid(text, "capacity is a plain number of requests per second (e.g. capacity>=400)");
        }
        if (metric.EndsWith(ChangeSuffix, StringComparison.Ordinal))
        {
            return unit == "%"
                ? new Threshold(clean, Change, op, value, true) { ChangeOf = ChangeGate.MetricOf(metric[..^ChangeSuffix.Length], text) }
                : throw Invalid(text, $"{metric} is a percentage, e.g. {metric}>-5%");
        }
        if (Metrics.ForThreshold(metric) is { } plain)
        {
            return unit.Length == 0
                ? new Threshold(clean, metric, op, value, false)
                : throw Invalid(text, $"{metric} is a plain number of {plain.Unit} (e.g. {metric}>1000)");
        }
        return metric switch
        {
            Errors when unit is "%" or "" => new Threshold(clean, metric, op, value, unit == "%"),
            Errors => throw Invalid(text, "errors is a rate in percent (errors<1%) or a count (errors<=0)"),
            Change when unit == "%" => new Threshold(clean, metric, op, value, true),
            Change => throw Invalid(text, "change is a percentage, e.g. change>-5%"),
            _ => throw Invalid(text, $"unknown metric '{metric}'; {Syntax}"),
        };
    }

    private const string ChangeSuffix = "-" + Change;

    [GeneratedRegex(@"^\s*no-worse\s*(\(\s*(?<margin>[^)]*?)\s*\))?\s*$", RegexOptions.IgnoreCase)]
    private static partial Regex NoWorsePattern();

    private static Threshold NoWorseOf(string text, Group margin)
    {
        if (!margin.Success)
        {
            return new Threshold(NoWorse, NoWorse, "", 0, false);
        }
        return Percentage(margin.Value) is { } percent
            ? new Threshold(string.Create(CultureInfo.InvariantCulture, $"{NoWorse}({percent:0.###}%)"), NoWorse, "", 0, true)
            {
                Margin = percent,
            }
            : throw Invalid(text, "no-worse's margin is a percentage above 0 and below 100, e.g. no-worse(3%)");
    }

    /// <summary>"3%" or "3" as 3: a margin above 0 and below 100; null when it is not one.</summary>
    public static double? Percentage(string text) =>
        double.TryParse(text.Trim().TrimEnd('%'), NumberStyles.Float, CultureInfo.InvariantCulture, out var percent)
            && percent is > 0 and < 100 ? percent : null;

    internal static PerfLabException Invalid(string text, string why) => new($"threshold '{text}': {why}.", ExitCode.Usage);

    /// <summary>Whether <paramref name="observed"/> (ms, RPS, percent or a count, as the metric reads) meets the threshold.</summary>
    public bool Holds(double observed) => double.IsFinite(observed) && Operator switch
    {
        "<" => observed < Value,
        "<=" => observed <= Value,
        ">" => observed > Value,
        _ => observed >= Value,
    };

    /// <summary>A figure in the threshold's own unit: "231.4 ms", "0.52 %", "1204.3 RPS".</summary>
    public string Format(double observed) => !double.IsFinite(observed) ? "no figure"
        : Measured is { Unit: "ms" } || Metric == CpuPerRequest ? string.Create(CultureInfo.InvariantCulture, $"{observed:0.##} ms")
        : Metric == Capacity ? string.Create(CultureInfo.InvariantCulture, $"{observed:0.#} RPS")
        : Measured is { } measured ? string.Create(CultureInfo.InvariantCulture, $"{observed:0.#} ") + measured.Unit
        : Percent ? string.Create(CultureInfo.InvariantCulture, $"{observed:0.###} %")
        : string.Create(CultureInfo.InvariantCulture, $"{observed:0} errors");
}

/// <summary>One threshold checked on one experiment, variant and scenario (or on the whole experiment): the CI gate's evidence.</summary>
/// <param name="Threshold">As written, e.g. "p99&lt;250ms".</param>
/// <param name="Scope">What it was checked on: "serializer / newtonsoft / order", "gc: every comparison".</param>
/// <param name="Observed">The figure it was checked against, in the threshold's unit, or why there was none.</param>
public sealed record ThresholdCheck(string Threshold, string Scope, string Observed, bool Passed)
{
    /// <summary>
    /// The comparisons a change or no-worse gate read (<see cref="GatedChange.Reads"/>): JUnit fails their worse verdicts.
    /// Not part of the check's value (results.json does not keep it; equality ignores it).
    /// </summary>
    [System.Text.Json.Serialization.JsonIgnore]
    public IReadOnlyList<string> Reads { get; init; } = [];

    public bool Equals(ThresholdCheck? other) =>
        other is not null && (Threshold, Scope, Observed, Passed) == (other.Threshold, other.Scope, other.Observed, other.Passed);

    public override int GetHashCode() => HashCode.Combine(Threshold, Scope, Observed, Passed);
}
