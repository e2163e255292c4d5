using System.Text;
using BenchmarkDotNet.Attributes;

namespace PerfLab.Micro;

// Seed 002, section "SignalR", table StringLookup / Utf8LookupBefore / Utf8LookupAfter (100.19 ns, 32 B; 109.24 ns;
// 85.20 ns): finding a hub method named by UTF-8 bytes off the wire. Decoding to a string allocates on every message;
// dotnet/aspnetcore#41465 compared the bytes against cached names instead, encoding each name per comparison (no
// allocation, a little slower), and dotnet/aspnetcore#41644 tries an exact-case comparison with names encoded once first, encoding only for the
// case-insensitive fallback (no allocation and faster).
[MemoryDiagnoser]
public class Utf8LookupBenchmarks
{
    private static readonly string[] Methods =
        ["SendMessage", "JoinGroup", "LeaveGroup", "Broadcast", "StartTyping", "StopTyping", "Acknowledge", "Notify"];

    private readonly Dictionary<string, int> _byName = new(StringComparer.OrdinalIgnoreCase);
    private readonly byte[][] _utf8Names = new byte[Methods.Length][];
    private readonly byte[] _wire = Encoding.UTF8.GetBytes("Notify");

    public Utf8LookupBenchmarks()
    {
        for (var i = 0; i < Methods.Length; i++)
        {
            _byName[Methods[i]] = i;
            _utf8Names[i] = Encoding.UTF8.GetBytes(Methods[i]);
        }
    }

    [Benchmark(Baseline = true)]
    public int StringLookup()
    {
        var name = Encoding.UTF8.GetString(_wire);
        return _byName.TryGetValue(name, out var index) ? index : -1;
    }

    [Benchmark]
    public int Utf8LookupBefore() => FindIgnoringCase(_wire);

    [Benchmark]
    public int Utf8LookupAfter()
    {
        ReadOnlySpan<byte> wire = _wire;
        for (var i = 0; i < _utf8Names.Length; i++)
        {
            if (wire.SequenceEqual(_utf8Names[i]))
            {
                return i;
            }
        }
        return FindIgnoringCase(wire);
    }

    // Before: every cached name is encoded to UTF-8 again and compared with the wire bytes, ignoring ASCII case.
    private static int FindIgnoringCase(ReadOnlySpan<byte> wire)
    {
        Span<byte> encoded = stackalloc byte[128];
        for (var i = 0; i < Methods.Length; i++)
        {
            if (Encoding.UTF8.TryGetBytes(Methods[i], encoded, out var length)
                && Ascii.EqualsIgnoreCase(encoded[..length], wire))
            {
                return i;
            }
        }
        return -1;
    }
}
