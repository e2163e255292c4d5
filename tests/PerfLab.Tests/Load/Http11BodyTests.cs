using System.Text;
using PerfLab.Load;

namespace PerfLab.Tests.Load;

/// <summary>
/// The body framing the reader runs over whatever part of a response its buffer holds: the same count and the same
/// kept bytes whether the body comes in one piece or is cut at every possible place (as a socket may deliver it).
/// </summary>
public sealed class Http11BodyTests
{
    // A 1,321-byte JSON body in two chunks with an extension and a trailer field, as a server may frame it.
    private static readonly string Json =
        "{" + string.Join(",", Enumerable.Range(0, 40).Select(i => $"\"k{i:00}\":\"value number {i:00} of forty\"")) + "}";
    private static readonly byte[] Chunked = Encoding.ASCII.GetBytes(
        $"{1000:x}\r\n{Json[..1000]}\r\n{Json.Length - 1000:X};ext=1\r\n{Json[1000..]}\r\n0\r\nX-Trailer: yes\r\n\r\n");

    [Fact]
    public void Advance_ChunkedBodyInOnePiece_TakesItAllAndCountsTheDechunkedBytes()
    {
        var body = new Http11Body();
        var kept = new KeptBody();
        body.StartChunked();

        var used = body.Advance(Chunked, kept);

        Assert.True(body.Done);
        Assert.Equal(Chunked.Length, used);
        Assert.Equal(Json.Length, body.Bytes);
        Assert.Equal(Json, Encoding.ASCII.GetString(kept.Span));
    }

    [Fact]
    public void Advance_ChunkedBodyCutAtEveryPlace_GivesTheSameCountAndBytes()
    {
        for (var cut = 1; cut < Chunked.Length; cut++)
        {
            var (bytes, kept, leftOver) = InTwoPieces(Chunked, cut, b => b.StartChunked());
            Assert.True(bytes == Json.Length, $"cut at {cut}: {bytes} bytes");
            Assert.Equal(Json, kept);
            Assert.Equal(0, leftOver);
        }
    }

    [Fact]
    public void Advance_ContentLengthBodyFollowedByNothing_TakesExactlyTheLength()
    {
        var body = new Http11Body();
        body.StartLength(13);

        Assert.Equal(5, body.Advance("Hello"u8, null));
        Assert.False(body.Done);
        Assert.Equal(8, body.Advance(", World!extra"u8, null));
        Assert.True(body.Done);
        Assert.Equal(13, body.Bytes);
    }

    [Fact]
    public void Advance_NoKeptBody_CountsWithoutKeeping()
    {
        var body = new Http11Body();
        body.StartChunked();
        var kept = new KeptBody();

        body.Advance(Chunked, null);

        Assert.Equal(Json.Length, body.Bytes);
        Assert.Equal(0, kept.Span.Length);
    }

    [Fact]
    public void Closed_ReadToCloseBody_EndsItWithEveryByteCounted()
    {
        var body = new Http11Body();
        body.StartToClose();
        body.Advance(new byte[700], null);
        body.Advance(new byte[300], null);
        Assert.False(body.Done);

        body.Closed();

        Assert.True(body.Done);
        Assert.Equal(1000, body.Bytes);
    }

    [Theory]
    [InlineData("zz\r\n", "invalid chunk size 'zz'")]
    [InlineData("3\r\nabcX\r\n", "a chunk not followed by CRLF")]
    public void Advance_BrokenChunkedBody_ThrowsNamingWhatIsWrong(string text, string message)
    {
        var body = new Http11Body();
        body.StartChunked();

        var ex = Assert.Throws<Http11ProtocolException>(() => body.Advance(Encoding.ASCII.GetBytes(text), null));

        Assert.Equal(message, ex.Message);
    }

    [Fact]
    public void Closed_InsideAChunkedBody_ThrowsAProtocolError()
    {
        var body = new Http11Body();
        body.StartChunked();
        body.Advance(Chunked.AsSpan(0, 100), null);

        var ex = Assert.Throws<Http11ProtocolException>(body.Closed);

        Assert.Contains("inside a chunked body", ex.Message);
    }

    /// <summary>Feeds the first <paramref name="cut"/> bytes, then what was not taken plus the rest, as the reader does.</summary>
    private static (long Bytes, string Kept, int LeftOver) InTwoPieces(byte[] whole, int cut, Action<Http11Body> start)
    {
        var body = new Http11Body();
        var kept = new KeptBody();
        start(body);
        var used = body.Advance(whole.AsSpan(0, cut), kept);
        var rest = whole.AsSpan(used);
        var usedRest = body.Advance(rest, kept);
        Assert.True(body.Done, $"cut at {cut}: not done");
        return (body.Bytes, Encoding.ASCII.GetString(kept.Span), rest.Length - usedRest);
    }
}
