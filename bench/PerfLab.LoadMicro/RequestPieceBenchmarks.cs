using System.Diagnostics;
using System.Text;
using BenchmarkDotNet.Attributes;
using PerfLab.Load;

namespace PerfLab.LoadMicro;

/// <summary>
/// The pieces of one request step, each alone: a clock read, finding the end of a response's head, parsing the head,
/// recording a response (counts, status, latency histogram; the open model's uncorrected one beside it), writing
/// a request whose body varies into its user's buffer, and the sampler's once-a-second snapshot.
/// </summary>
[MemoryDiagnoser]
public class RequestPieceBenchmarks
{
    private readonly byte[] _response = Responses.Whole("plaintext");
    private readonly byte[] _plaintextHead = Encoding.ASCII.GetBytes(Responses.Head("plaintext"));
    private readonly byte[] _infoHead = Encoding.ASCII.GetBytes(Responses.Head("info"));
    private readonly ThreadRecorder _closed = new(uncorrected: false);
    private readonly ThreadRecorder _open = new(uncorrected: true);
    private readonly RequestTemplate _varying;
    private readonly RecorderSet _recorders = new(uncorrected: false);
    private RecordingSnapshot _previous;
    private byte[] _scratch = [];
    private int _next;

    public RequestPieceBenchmarks()
    {
        var spec = RequestSpec.Get with { Method = "POST", Body = Encoding.UTF8.GetBytes("{\"id\":\"{id}\",\"quantity\":1}") };
        var values = Enumerable.Range(0, 1000).Select(i => $"order-{i:0000}").ToList();
        _varying = new RequestTemplate(spec, [new Uri("http://127.0.0.1:5099/orders")], values, "id");
        for (var i = 0; i < 30_000; i++)
        {
            var ticks = (500 + (i % 2000)) * Stopwatch.Frequency / 1_000_000;
            _recorders.Current.Record(RequestOutcome.Response, 200, 13, ticks, ticks);
        }
        _previous = _recorders.Snapshot();
    }

    [Benchmark]
    public long Timestamp() => Stopwatch.GetTimestamp();

    [Benchmark]
    public int FindHeadEnd() => _response.AsSpan().IndexOf("\r\n\r\n"u8);

    [Benchmark]
    public int ParsePlaintextHead() => Http11Head.Parse(_plaintextHead).Status;

    [Benchmark]
    public int ParseInfoHead() => Http11Head.Parse(_infoHead).Status;

    /// <summary>Latencies of 600-700 µs, as on loopback at 32 connections: the same few histogram buckets, in cache.</summary>
    [Benchmark]
    public long RecordClosed()
    {
        var ticks = (600 + (_next++ & 127)) * Stopwatch.Frequency / 1_000_000;
        _closed.Record(RequestOutcome.Response, 200, 13, ticks, ticks);
        return _closed.Requests;
    }

    [Benchmark]
    public long RecordOpen()
    {
        var ticks = (600 + (_next++ & 127)) * Stopwatch.Frequency / 1_000_000;
        _open.Record(RequestOutcome.Response, 200, 13, ticks + 100, ticks);
        return _open.Requests;
    }

    /// <summary>
    /// Once a second, not per request: the sampler's snapshot of the recorders (holding 30,000 latencies between
    /// 0.5 and 2.5 ms) and its difference from the previous one, which make the timeline's point.
    /// </summary>
    [Benchmark]
    public long SecondSnapshot()
    {
        var now = _recorders.Snapshot();
        var second = now.Minus(_previous);
        _previous = now;
        return second.Requests;
    }

    [Benchmark]
    public int VaryingBodyRequest() => _varying.For(_next++ % _varying.Count, ref _scratch).Length;
}
