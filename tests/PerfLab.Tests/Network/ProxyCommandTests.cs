using System.Net;
using PerfLab.Network;

namespace PerfLab.Tests.Network;

public sealed class ProxyCommandTests
{
    [Theory]
    [InlineData("10ms", 10)]
    [InlineData("10", 10)]
    [InlineData("0.5s", 500)]
    [InlineData("250us", 0.25)]
    [InlineData("0", 0)]
    public void TryParseDuration_WithUnit_GivesMilliseconds(string text, double ms)
    {
        Assert.True(ProxyCommand.TryParseDuration(text, out var value));
        Assert.Equal(ms, value.TotalMilliseconds, 6);
    }

    [Theory]
    [InlineData("")]
    [InlineData("fast")]
    [InlineData("-5ms")]
    [InlineData("NaNms")]
    public void TryParseDuration_Nonsense_Fails(string text) => Assert.False(ProxyCommand.TryParseDuration(text, out _));

    [Theory]
    [InlineData("127.0.0.1:5000", "127.0.0.1:5000")]
    [InlineData("localhost:5432", "127.0.0.1:5432")]
    [InlineData("[::1]:80", "[::1]:80")]
    public void TryParseTarget_HostAndPort_GivesEndPoint(string text, string expected)
    {
        Assert.True(ProxyCommand.TryParseTarget(text, out var endPoint));
        Assert.Equal(IPEndPoint.Parse(expected), endPoint);
    }

    [Theory]
    [InlineData("127.0.0.1")]
    [InlineData("example.org:80")]
    [InlineData("127.0.0.1:0")]
    public void TryParseTarget_NoPortOrNotAnAddress_Fails(string text) => Assert.False(ProxyCommand.TryParseTarget(text, out _));

    [Theory]
    [InlineData("--target", "127.0.0.1:5000", "--rtt", "1h")]
    [InlineData("--target", "nowhere", "--rtt", "10ms")]
    [InlineData("--target", "127.0.0.1:5000", "--port", "70000")]
    [InlineData("--rtt", "10ms")]
    public void Parse_BadArguments_ReportsAnErrorBeforeAnythingStarts(params string[] args) =>
        Assert.NotEmpty(ProxyCommand.Create().Parse(args).Errors);

    [Fact]
    public void Parse_GoodArguments_HasNoError() =>
        Assert.Empty(ProxyCommand.Create().Parse(["--target", "127.0.0.1:5000", "--rtt", "20ms"]).Errors);
}
