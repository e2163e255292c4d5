using System.Globalization;

namespace PerfLab.Common;

/// <summary>Byte sizes as Kestrel's limits are written: 96KB, 16MB, 1GB (binary multiples); a bare number is bytes.</summary>
public static class Sizes
{
    public const long MinUpload = 1024;
    public const long MaxUpload = 1L << 30;
    public static readonly TimeSpan MaxRtt = TimeSpan.FromSeconds(1);

    public static bool TryParse(string? text, out long bytes)
    {
        bytes = 0;
        if (string.IsNullOrWhiteSpace(text))
        {
            return false;
        }
        text = text.Trim().ToUpperInvariant();
        var (number, unit) = text.EndsWith("GB", StringComparison.Ordinal) ? (text[..^2], 1L << 30)
            : text.EndsWith("MB", StringComparison.Ordinal) ? (text[..^2], 1L << 20)
            : text.EndsWith("KB", StringComparison.Ordinal) ? (text[..^2], 1L << 10)
            : text.EndsWith('B') ? (text[..^1], 1L)
            : (text, 1L);
        if (!double.TryParse(number, NumberStyles.Float, CultureInfo.InvariantCulture, out var amount) || amount < 0
            || amount * unit > long.MaxValue / 2)
        {
            return false;
        }
        bytes = (long)(amount * unit);
        return true;
    }

    public static string Format(long bytes) =>
        bytes % (1L << 20) == 0 ? $"{(bytes >> 20).ToString(CultureInfo.InvariantCulture)} MB"
        : bytes % 1024 == 0 ? $"{(bytes >> 10).ToString(CultureInfo.InvariantCulture)} KB"
        : $"{bytes.ToString(CultureInfo.InvariantCulture)} B";
}
