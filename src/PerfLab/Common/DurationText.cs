using System.Globalization;

namespace PerfLab.Common;

/// <summary>Durations as load tools write them: 500ms, 30s, 2m, 1h, 1.5s (a bare number means seconds).</summary>
public static class DurationText
{
    public static bool TryParse(string? text, out TimeSpan value)
    {
        value = default;
        if (string.IsNullOrWhiteSpace(text))
        {
            return false;
        }
        var s = text.Trim().ToLowerInvariant();
        (string unit, double scale)[] units = [("ms", 0.001), ("us", 0.000001), ("s", 1), ("m", 60), ("h", 3600)];
        var scale = 1.0;
        foreach (var (unit, factor) in units)
        {
            if (s.EndsWith(unit, StringComparison.Ordinal))
            {
                s = s[..^unit.Length];
                scale = factor;
                break;
            }
        }
        if (!double.TryParse(s, NumberStyles.AllowDecimalPoint | NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture,
            out var number)
            || !double.IsFinite(number) || Math.Abs(number * scale) > TimeSpan.MaxValue.TotalSeconds / 2)
        {
            return false;
        }
        value = TimeSpan.FromSeconds(number * scale);
        return true;
    }

    public static string Format(TimeSpan value) => value.TotalSeconds switch
    {
        < 1 => string.Create(CultureInfo.InvariantCulture, $"{value.TotalMilliseconds:0.###}ms"),
        < 120 => string.Create(CultureInfo.InvariantCulture, $"{value.TotalSeconds:0.###}s"),
        < 7200 => string.Create(CultureInfo.InvariantCulture, $"{value.TotalMinutes:0.###}m"),
        _ => string.Create(CultureInfo.InvariantCulture, $"{value.TotalHours:0.###}h"),
    };
}
