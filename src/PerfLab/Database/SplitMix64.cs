namespace PerfLab.Database;

// SplitMix64 (Steele, Lea, Flood 2014): a fixed, documented algorithm, so the same seed yields the same data on every
// runtime. System.Random's algorithm is unspecified and has changed between .NET versions.
internal sealed class SplitMix64(ulong seed)
{
    private ulong _state = seed;

    public ulong NextUInt64()
    {
        var z = _state += 0x9E3779B97F4A7C15UL;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
        return z ^ (z >> 31);
    }

    /// <summary>A value in [minInclusive, maxExclusive), by multiply-shift (Lemire) to avoid modulo bias.</summary>
    public int Next(int minInclusive, int maxExclusive)
    {
        var range = (ulong)(maxExclusive - minInclusive);
        return minInclusive + (int)(ulong)(((UInt128)NextUInt64() * range) >> 64);
    }

    /// <summary>A value in [0, 1) with 53 random bits.</summary>
    public double NextDouble() => (NextUInt64() >> 11) * (1.0 / (1UL << 53));

    public bool Chance(double probability) => NextDouble() < probability;

    public T Pick<T>(IReadOnlyList<T> items) => items[Next(0, items.Count)];

    /// <summary>A version-4 UUID made from generator bits, so rowguids are reproducible.</summary>
    public Guid NextGuid()
    {
        Span<byte> bytes = stackalloc byte[16];
        BitConverter.TryWriteBytes(bytes, NextUInt64());
        BitConverter.TryWriteBytes(bytes[8..], NextUInt64());
        bytes[7] = (byte)((bytes[7] & 0x0F) | 0x40);
        bytes[8] = (byte)((bytes[8] & 0x3F) | 0x80);
        return new Guid(bytes);
    }
}
