using System.Numerics;
using System.Runtime.CompilerServices;

namespace PerfLab.Load;

/// <summary>
/// A log-linear histogram of durations in whole microseconds, in the manner of HdrHistogram.
/// </summary>
/// <remarks>
/// <para>Range: 0 µs to 1 h (3,600,000,000 µs); larger values are clamped to 1 h and counted in <see cref="ClampedCount"/>.</para>
/// <para>Precision: 3 significant decimal digits. Values below 2,048 µs are stored exactly (1 µs buckets); above that
/// every power-of-two range is split into 1,024 equal buckets, so a bucket is never wider than 1/1,024 of its lowest
/// value. A percentile is reported as the midpoint of its bucket, hence within 0.05 % (plus 0.5 µs) of the exact
/// nearest-rank value of the recorded data; min and max are the bucket bounds (within 0.1 %); the mean is exact
/// (computed from the exact sum); the standard deviation is computed from bucket midpoints.</para>
/// <para>Recording is constant time and allocation-free once a value range has been seen (storage is allocated in
/// 1,024-bucket chunks on first use). A histogram is written by one thread only; another thread may read it while it
/// is being written and sees counts that are at most a few records behind. Histograms are merged and subtracted
/// bucket by bucket, which is how per-thread recordings become per-second and whole-run figures.</para>
/// </remarks>
public sealed class LatencyHistogram
{
    /// <summary>The largest value the histogram holds, in microseconds (one hour).</summary>
    public const long MaxValue = 3_600_000_000L;

    private const int SubBucketBits = 10;
    private const int ChunkSize = 1 << SubBucketBits;
    // 2048 << 21 > 3.6e9, so bucket 21 is the last one needed; flat index = (bucket << 10) + (value >> bucket).
    private const int BucketCount = 22;
    private const int IndexCount = (BucketCount + 1) * ChunkSize;
    private const int ChunkCount = IndexCount / ChunkSize;

    private readonly long[]?[] _chunks = new long[]?[ChunkCount];
    private long _count;
    private long _sum;
    private long _clamped;

    public long Count => _count;

    /// <summary>How many 1,024-bucket chunks hold storage: what recording has allocated so far, one per value range seen.</summary>
    internal int ChunksInUse => _chunks.Count(c => c is not null);

    /// <summary>The most one chunk's storage takes (1,024 counts and the array's header).</summary>
    internal const int ChunkBytes = ChunkSize * sizeof(long) + 64;

    /// <summary>The exact sum of the recorded (clamped) values, in microseconds.</summary>
    public long Sum => _sum;

    public long ClampedCount => _clamped;

    public void Record(long microseconds)
    {
        if ((ulong)microseconds > MaxValue)
        {
            microseconds = microseconds < 0 ? 0 : MaxValue;
            if (microseconds == MaxValue)
            {
                _clamped++;
            }
        }
        var index = IndexOf(microseconds);
        var chunk = _chunks[index >> SubBucketBits] ??= new long[ChunkSize];
        chunk[index & (ChunkSize - 1)]++;
        _count++;
        _sum += microseconds;
    }

    internal static int IndexOf(long value)
    {
        var bucket = (63 - BitOperations.LeadingZeroCount((ulong)value | (2 * ChunkSize - 1))) - SubBucketBits;
        return (bucket << SubBucketBits) + (int)(value >> bucket);
    }

    internal static long LowestEquivalent(int index)
    {
        if (index < 2 * ChunkSize)
        {
            return index;
        }
        var bucket = (index >> SubBucketBits) - 1;
        var sub = index - (bucket << SubBucketBits);
        return (long)sub << bucket;
    }

    internal static long HighestEquivalent(int index)
    {
        if (index < 2 * ChunkSize)
        {
            return index;
        }
        var bucket = (index >> SubBucketBits) - 1;
        var sub = index - (bucket << SubBucketBits);
        return ((long)(sub + 1) << bucket) - 1;
    }

    internal static double Midpoint(int index) => (LowestEquivalent(index) + HighestEquivalent(index)) / 2.0;

    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // once a second: optimized at first use, no tier-up in the window (Sampler)
    public void Add(LatencyHistogram other)
    {
        for (var c = 0; c < ChunkCount; c++)
        {
            var source = other._chunks[c];
            if (source is null)
            {
                continue;
            }
            var target = _chunks[c] ??= new long[ChunkSize];
            for (var i = 0; i < ChunkSize; i++)
            {
                target[i] += source[i];
            }
        }
        _count += other._count;
        _sum += other._sum;
        _clamped += other._clamped;
    }

    /// <summary>Removes what <paramref name="earlier"/> holds; used to turn cumulative snapshots into intervals.</summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // once a second: optimized at first use, no tier-up in the window (Sampler)
    public void Subtract(LatencyHistogram earlier)
    {
        for (var c = 0; c < ChunkCount; c++)
        {
            var source = earlier._chunks[c];
            if (source is null)
            {
                continue;
            }
            var target = _chunks[c] ??= new long[ChunkSize];
            for (var i = 0; i < ChunkSize; i++)
            {
                target[i] -= source[i];
            }
        }
        _count -= earlier._count;
        _sum -= earlier._sum;
        _clamped -= earlier._clamped;
    }

    /// <summary>
    /// Adds <paramref name="count"/> values equal to <paramref name="microseconds"/>
    /// at once (a bucket read back from another histogram).
    /// </summary>
    internal void RecordCount(long microseconds, long count)
    {
        if (count <= 0)
        {
            return;
        }
        var value = Math.Clamp(microseconds, 0, MaxValue);
        var index = IndexOf(value);
        var chunk = _chunks[index >> SubBucketBits] ??= new long[ChunkSize];
        chunk[index & (ChunkSize - 1)] += count;
        _count += count;
        _sum += value * count;
    }

    /// <summary>
    /// Every non-empty bucket, lowest first: the value every member of the
    /// bucket is reported as (its midpoint, rounded down) and its count.
    /// </summary>
    internal IEnumerable<(long Value, long Count)> Buckets()
    {
        for (var c = 0; c < ChunkCount; c++)
        {
            if (_chunks[c] is not { } chunk)
            {
                continue;
            }
            for (var i = 0; i < ChunkSize; i++)
            {
                if (chunk[i] != 0)
                {
                    yield return ((long)Midpoint((c << SubBucketBits) + i), chunk[i]);
                }
            }
        }
    }

    public LatencyHistogram Copy()
    {
        var copy = new LatencyHistogram();
        copy.Add(this);
        return copy;
    }

    public double Mean => _count == 0 ? 0 : (double)_sum / _count;

    /// <summary>Nearest-rank percentile (0..100] in microseconds, the midpoint of the bucket holding that rank.</summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // once a second: optimized at first use, no tier-up in the window (Sampler)
    public double Percentile(double percentile)
    {
        if (_count == 0)
        {
            return 0;
        }
        var rank = Math.Max(1, (long)Math.Ceiling(percentile / 100.0 * _count));
        long seen = 0;
        for (var c = 0; c < ChunkCount; c++)
        {
            var chunk = _chunks[c];
            if (chunk is null)
            {
                continue;
            }
            for (var i = 0; i < ChunkSize; i++)
            {
                seen += chunk[i];
                if (seen >= rank)
                {
                    return Midpoint((c << SubBucketBits) + i);
                }
            }
        }
        return Max;
    }

    public long Min
    {
        get
        {
            var index = FirstOrLastIndex(first: true);
            return index < 0 ? 0 : LowestEquivalent(index);
        }
    }

    public long Max
    {
        get
        {
            var index = FirstOrLastIndex(first: false);
            return index < 0 ? 0 : HighestEquivalent(index);
        }
    }

    public double StdDev
    {
        get
        {
            if (_count < 2)
            {
                return 0;
            }
            var mean = Mean;
            double squares = 0;
            for (var c = 0; c < ChunkCount; c++)
            {
                var chunk = _chunks[c];
                if (chunk is null)
                {
                    continue;
                }
                for (var i = 0; i < ChunkSize; i++)
                {
                    if (chunk[i] != 0)
                    {
                        var d = Midpoint((c << SubBucketBits) + i) - mean;
                        squares += d * d * chunk[i];
                    }
                }
            }
            return Math.Sqrt(squares / _count);
        }
    }

    private int FirstOrLastIndex(bool first)
    {
        for (var k = 0; k < ChunkCount; k++)
        {
            var c = first ? k : ChunkCount - 1 - k;
            var chunk = _chunks[c];
            if (chunk is null)
            {
                continue;
            }
            for (var j = 0; j < ChunkSize; j++)
            {
                var i = first ? j : ChunkSize - 1 - j;
                if (chunk[i] != 0)
                {
                    return (c << SubBucketBits) + i;
                }
            }
        }
        return -1;
    }
}
