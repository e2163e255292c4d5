using PerfLab.Common;
using PerfLab.Hosts;

namespace PerfLab.Tests.Hosts;

/// <summary>
/// A file sent as a role's lines (a trace from the app's host): a known byte array over several chunks arrives equal, and
/// a cut, shortened or altered transfer fails naming the host instead of passing for a whole file.
/// </summary>
public sealed class ChunkedFileTests
{
    // Four full chunks of 49,152 bytes and a fifth of 3,392.
    private const int Length = 200_000;
    private static readonly HostRef App = new("app", "app-1");

    [Fact]
    public async Task SendAsync_KnownBytesOverFiveChunks_ArriveEqualWithTheirLength()
    {
        var sent = Pattern(Length);
        var lines = await LinesOfAsync(sent);

        Assert.Equal(5, lines.Count(l => l.Kind == "trace-chunk"));
        Assert.All(lines.Where(l => l.Kind == "trace-chunk").SkipLast(1),
            l => Assert.Equal(ChunkedFile.ChunkBytes, Convert.FromBase64String(l.Text).Length));
        Assert.Equal("trace-end", lines[^1].Kind);
        Assert.StartsWith("200000 ", lines[^1].Text, StringComparison.Ordinal);
        using var target = new MemoryStream();
        using var receiver = new ChunkReceiver(App, "the app's trace", target);
        Feed(receiver, lines);
        Assert.Equal(Length, await receiver.Completed);
        Assert.Equal(sent, target.ToArray());
    }

    [Fact]
    public async Task SendAsync_EmptyFile_ArrivesAsAnEmptyFile()
    {
        var lines = await LinesOfAsync([]);

        Assert.Equal(new[] { ("trace-end", "0 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855") }, lines);
        using var target = new MemoryStream();
        using var receiver = new ChunkReceiver(App, "the app's trace", target);
        Feed(receiver, lines);
        Assert.Equal(0, await receiver.Completed);
    }

    [Fact]
    public async Task Receive_ThirdChunkLost_FailsNamingTheHostAndTheBytesThatArrived()
    {
        var lines = (await LinesOfAsync(Pattern(Length))).Where((_, i) => i != 2).ToList();
        using var target = new MemoryStream();
        using var receiver = new ChunkReceiver(App, "the app's trace", target);

        Feed(receiver, lines);

        var failure = await Assert.ThrowsAsync<PerfLabException>(() => receiver.Completed);
        Assert.Equal("app host 'app-1': the app's trace was cut short: 150848 of its 200000 bytes arrived.", failure.Message);
        Assert.Equal(ExitCode.Unreachable, failure.ExitCode);
    }

    [Fact]
    public async Task Receive_SessionEndsAfterTwoChunks_FailsNamingTheHost()
    {
        var lines = await LinesOfAsync(Pattern(Length));
        using var target = new MemoryStream();
        using var receiver = new ChunkReceiver(App, "the app's trace", target);

        Feed(receiver, lines.Take(2));
        receiver.SessionEnded();

        var failure = await Assert.ThrowsAsync<PerfLabException>(() => receiver.Completed);
        Assert.Equal("app host 'app-1': the app's trace was cut short: the session ended after 98304 bytes.", failure.Message);
        // A chunk after the failure changes nothing: the file stays failed, nothing more is written.
        Feed(receiver, lines.Skip(2));
        Assert.Equal(2 * ChunkedFile.ChunkBytes, target.Length);
        Assert.True(receiver.Completed.IsFaulted);
    }

    [Fact]
    public async Task Receive_ChunkAlteredInTransit_FailsOnTheHash()
    {
        var lines = await LinesOfAsync(Pattern(Length));
        var altered = Convert.FromBase64String(lines[1].Text);
        altered[1000] ^= 0xFF;
        lines[1] = (lines[1].Kind, Convert.ToBase64String(altered));
        using var target = new MemoryStream();
        using var receiver = new ChunkReceiver(App, "the app's trace", target);

        Feed(receiver, lines);

        var failure = await Assert.ThrowsAsync<PerfLabException>(() => receiver.Completed);
        Assert.Equal("app host 'app-1': the app's trace arrived corrupted: its SHA-256 differs from the one sent.", failure.Message);
    }

    [Fact]
    public async Task Receive_ForeignTextInsideAChunk_FailsSayingWhatGotIn()
    {
        var lines = await LinesOfAsync(Pattern(Length));
        // Another writer's line cut into the second chunk's, as a second writer on the role's output would.
        lines[1] = (lines[1].Kind, lines[1].Text[..100] + "alive\u0007" + lines[1].Text[100..]);
        using var target = new MemoryStream();
        using var receiver = new ChunkReceiver(App, "the app's trace", target);

        Feed(receiver, lines);

        var failure = await Assert.ThrowsAsync<PerfLabException>(() => receiver.Completed);
        Assert.Equal($"app host 'app-1': the app's trace arrived garbled (a chunk after 49152 bytes is not base64: of its 65542 "
            + $"characters, character 106 is not: '{lines[1].Text[89..105]}\\u0007{lines[1].Text[106..153]}').", failure.Message);
    }

    [Fact]
    public async Task Receive_ChunkCutShort_FailsSayingItsLength()
    {
        var lines = await LinesOfAsync(Pattern(Length));
        lines[2] = (lines[2].Kind, lines[2].Text[..1001]);
        using var target = new MemoryStream();
        using var receiver = new ChunkReceiver(App, "the app's trace", target);

        Feed(receiver, lines);

        var failure = await Assert.ThrowsAsync<PerfLabException>(() => receiver.Completed);
        Assert.Equal("app host 'app-1': the app's trace arrived garbled (a chunk after 98304 bytes is not base64: its 1001 "
            + "characters are base64, cut short of a whole chunk).", failure.Message);
    }

    private static byte[] Pattern(int length) => [.. Enumerable.Range(0, length).Select(i => (byte)(i * 31 % 251))];

    /// <summary>What the role writes to its session for <paramref name="bytes"/>, each line as kind and the rest.</summary>
    private static async Task<List<(string Kind, string Text)>> LinesOfAsync(byte[] bytes)
    {
        using var output = new StringWriter();
        await ChunkedFile.SendAsync(new RoleLines(TextReader.Null, output), "trace", new MemoryStream(bytes), CancellationToken.None);
        return [.. output.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries)
            .Select(l => l.Split(' ', 2)).Select(p => (p[0], p.Length > 1 ? p[1] : ""))];
    }

    private static void Feed(ChunkReceiver receiver, IEnumerable<(string Kind, string Text)> lines)
    {
        foreach (var (kind, text) in lines)
        {
            if (kind == "trace-chunk")
            {
                receiver.Chunk(text);
            }
            else if (kind == "trace-end")
            {
                receiver.End(text);
            }
        }
    }
}
