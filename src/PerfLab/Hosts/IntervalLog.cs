using System.Text;
using HdrHistogram;
using PerfLab.Load;

namespace PerfLab.Hosts;

/// <summary>One interval of a latency log: what one generator recorded between <see cref="Start"/> and <see cref="End"/>.</summary>
/// <param name="Tag">The generator (host) that recorded it; null when the log carries no tag.</param>
public sealed record LogInterval(DateTimeOffset Start, DateTimeOffset End, string? Tag, LatencyHistogram Latency);

/// <summary>
/// Latencies in the HdrHistogram interval-log format (the HdrHistogram package's writer and reader, so any HdrHistogram
/// tool reads what a generator sent), converted at the boundary to and from the load engine's <see cref="LatencyHistogram"/>.
/// </summary>
/// <remarks>
/// Both histograms keep three significant digits in microseconds with the same bucket edges (exact below 2,048 µs, then
/// 1,024 buckets per power of two), so a bucket survives the round trip whole: each is written as its midpoint, which
/// HdrHistogram files in its identical bucket, and read back into the same one. Adding read-back histograms is therefore
/// exactly adding the originals, bucket by bucket, and the merged percentiles equal those of one histogram that had
/// recorded every value. The mean is computed from bucket midpoints (within 0.05 %): the exact sum is not part of the format.
/// </remarks>
public static class IntervalLog
{
    /// <summary>Latencies up to an hour, in microseconds, as <see cref="LatencyHistogram.MaxValue"/>.</summary>
    private const int SignificantDigits = 3;

    public static LongHistogram ToHdr(LatencyHistogram latency, DateTimeOffset start, DateTimeOffset end, string? tag = null)
    {
        var hdr = new LongHistogram(LatencyHistogram.MaxValue, SignificantDigits)
        {
            StartTimeStamp = start.ToUnixTimeMilliseconds(),
            EndTimeStamp = end.ToUnixTimeMilliseconds(),
            Tag = tag,
        };
        foreach (var (value, count) in latency.Buckets())
        {
            hdr.RecordValueWithCount(value, count);
        }
        return hdr;
    }

    public static LatencyHistogram FromHdr(HistogramBase hdr)
    {
        var latency = new LatencyHistogram();
        foreach (var step in hdr.RecordedValues())
        {
            // Any value of an HdrHistogram bucket lies in the same LatencyHistogram bucket; its midpoint names it.
            latency.RecordCount((long)LatencyHistogram.Midpoint(LatencyHistogram.IndexOf(step.ValueIteratedTo)),
                step.CountAtValueIteratedTo);
        }
        return latency;
    }

    /// <summary>A whole log at once: the header (format version, start time, legend) and every interval.</summary>
    public static void Write(TextWriter text, DateTimeOffset start, IEnumerable<LogInterval> intervals)
    {
        var writer = new IntervalLogWriter(text, start);
        foreach (var interval in intervals)
        {
            writer.Append(interval);
        }
    }

    /// <summary>Every interval of a log, in the order written; the start times are absolute.</summary>
    public static IReadOnlyList<LogInterval> Read(string log)
    {
        using var reader = new HistogramLogReader(new MemoryStream(Encoding.UTF8.GetBytes(log)));
        return
        [
            .. reader.ReadHistograms().Select(h => new LogInterval(
                DateTimeOffset.FromUnixTimeMilliseconds(h.StartTimeStamp),
                DateTimeOffset.FromUnixTimeMilliseconds(h.EndTimeStamp),
                string.IsNullOrEmpty(h.Tag) ? null : h.Tag,
                FromHdr(h))),
        ];
    }

    /// <summary>
    /// The sum of every interval that lies inside [<paramref name="from"/>, <paramref name="to"/>) (all of them by
    /// default): several generators' logs added into the latency of the whole load.
    /// </summary>
    public static LatencyHistogram Merge(IEnumerable<LogInterval> intervals, DateTimeOffset? from = null, DateTimeOffset? to = null)
    {
        var sum = new LatencyHistogram();
        foreach (var interval in intervals)
        {
            if ((from is null || interval.Start >= from) && (to is null || interval.End <= to))
            {
                sum.Add(interval.Latency);
            }
        }
        return sum;
    }
}

/// <summary>
/// Writes an interval log as it is recorded, one line per interval, flushed after each so a reader at the other end of
/// a pipe sees it at once.
/// </summary>
/// <remarks>
/// HdrHistogram.NET's writer emits UTF-16 and repeats its header before an interval written on its own; lines travel
/// over ssh beside JSON lines, so each piece is rendered by that writer into memory and passed on as plain text.
/// </remarks>
public sealed class IntervalLogWriter
{
    private readonly TextWriter _text;

    public IntervalLogWriter(TextWriter text, DateTimeOffset start)
    {
        _text = text;
        _text.Write(Render(w => w.Write(start.UtcDateTime)));
        _text.Flush();
    }

    public void Append(LogInterval interval) => _text.Write(Line(interval));

    /// <summary>The one line of an interval, with its newline, as <see cref="HistogramLogWriter.Append"/> writes it.</summary>
    public static string Line(LogInterval interval)
    {
        var rendered = Render(w => w.Append(IntervalLog.ToHdr(interval.Latency, interval.Start, interval.End, interval.Tag)));
        var line = rendered.Split('\n').Last(l => l.Length > 0 && l[0] != '#' && l[0] != '"');
        return line.TrimEnd('\r') + "\n";
    }

    private static string Render(Action<HistogramLogWriter> write)
    {
        using var memory = new MemoryStream();
        using (var writer = new HistogramLogWriter(memory))
        {
            write(writer);
        }
        return Encoding.Unicode.GetString(memory.ToArray()).TrimStart('\uFEFF');
    }
}
