using System.Globalization;
using PerfLab.Results;

namespace PerfLab.Reports;

// Every number a report shows goes through here: invariant culture, one style for intervals and changes.
internal static class Fmt
{
    public const string Missing = "—";

    private static readonly CultureInfo _inv = CultureInfo.InvariantCulture;

    public static string Num(double value, int decimals) =>
        double.IsFinite(value) ? value.ToString("F" + decimals.ToString(_inv), _inv) : Missing;

    public static string Int(long value) => value.ToString(_inv);

    /// <summary>"408.4 [395.1–420.0]": the median and its 95 % interval; one sample has no interval.</summary>
    public static string Est(Estimate? estimate, int decimals, double scale = 1)
    {
        if (estimate is null || estimate.Samples == 0)
        {
            return Missing;
        }
        var median = Num(estimate.Median * scale, decimals);
        return estimate.Samples < 2
            ? $"{median} (n=1)"
            : $"{median} [{Num(estimate.Low * scale, decimals)}–{Num(estimate.High * scale, decimals)}]";
    }

    /// <summary>"+3.5", "-0.2", "0.0": the sign of the number as shown, so a value that rounds to zero has none ("-0.0", "-+0").</summary>
    public static string Signed(double value, int decimals = 1)
    {
        if (!double.IsFinite(value))
        {
            return Missing;
        }
        var rounded = Math.Round(value, decimals, MidpointRounding.AwayFromZero);
        return rounded == 0 ? Num(0, decimals) : (rounded > 0 ? "+" : "") + Num(rounded, decimals);
    }

    /// <summary>
    /// The summary table's change: "+22.3 % [+15.1, +29.0]"; above +100 % (the variant more than doubles the figure)
    /// the ratio, "22.4× [6.4×, 78.2×]", as "+2137.5 %" reads badly. A fall is never beyond -100 % and stays in percent.
    /// </summary>
    public static string Headline(double change, double low, double high)
    {
        if (!double.IsFinite(change) || change <= RatioAbovePercent)
        {
            return Change(change, low, high);
        }
        static string Times(double percent) => Ratio(1 + percent / 100) + "×";
        return double.IsFinite(low) && double.IsFinite(high)
            ? $"{Times(change)} [{Times(low)}, {Times(high)}]"
            : $"{Times(change)} (no interval)";
    }

    /// <summary>Beyond this change, in percent, <see cref="Headline"/> shows the ratio.</summary>
    public const double RatioAbovePercent = 100;

    // Three significant figures up to 100, whole numbers beyond: 2.11×, 22.4×, 124167×.
    private static string Ratio(double ratio) => ratio switch
    {
        < 10 => Num(ratio, 2),
        < 100 => Num(ratio, 1),
        _ => Num(ratio, 0),
    };

    /// <summary>"+22.3 % [+15.1, +29.0]".</summary>
    public static string Change(double change, double low, double high) =>
        !double.IsFinite(change) ? Missing
        : double.IsFinite(low) && double.IsFinite(high) ? $"{Signed(change)} % [{Signed(low)}, {Signed(high)}]"
        : $"{Signed(change)} % (no interval)";

    public static string Timestamp(DateTimeOffset time) =>
        time.ToUniversalTime().ToString("yyyy-MM-dd HH:mm:ss 'UTC'", _inv);

    public static string Duration(TimeSpan span)
    {
        if (span < TimeSpan.FromMinutes(1))
        {
            return Num(span.TotalSeconds, span.TotalSeconds % 1 == 0 ? 0 : 1) + " s";
        }
        var minutes = (long)span.TotalMinutes;
        var seconds = span.Seconds;
        var hours = minutes / 60;
        var text = hours > 0 ? $"{Int(hours)} h {Int(minutes % 60)} min" : $"{Int(minutes)} min";
        return seconds == 0 ? text : $"{text} {Int(seconds)} s";
    }

    /// <summary>The verdict's one word: better, worse, equivalent, inconclusive.</summary>
    public static string Verdict(Verdict verdict) => verdict.ToString().ToLowerInvariant();

    /// <summary>A metric's header from the catalog ("p99 (ms)").</summary>
    public static string Metric(Metric metric) => metric.Header;

    /// <summary>The claim's outcome in one word: holds, contrary, equivalent, inconclusive.</summary>
    public static string Holds(ClaimCheck claim) => claim.Outcome.ToString().ToLowerInvariant();

    public static string FindingKind(FindingKind kind) => kind switch
    {
        Results.FindingKind.ThreadPoolStarvation => "Thread-pool starvation",
        Results.FindingKind.LockContention => "Lock contention",
        Results.FindingKind.GcPressure => "GC pressure",
        Results.FindingKind.BlockedThreadsLowCpu => "Blocked threads at low CPU",
        Results.FindingKind.GeneratorSaturated => "Load generator saturated",
        Results.FindingKind.Errors => "Errors",
        Results.FindingKind.Timeouts => "Timeouts",
        Results.FindingKind.SyncOverAsync => "Pool thread blocked (sync over async or sync I/O)",
        Results.FindingKind.GcHeadroom => "GC headroom",
        Results.FindingKind.CpuBreakdown => "CPU breakdown",
        _ => kind.ToString(),
    };
}
