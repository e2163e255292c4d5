using System.Net;
using PerfLab.Cli;

namespace PerfLab.Tests.Network;

public sealed class ProxyCommandTests
{
    [Theory]
    [InlineData("10ms", 10)]
    [InlineData("0.5s", 500)]
    [InlineData("250us", 0.25)]
    [InlineData("0", 0)]
    public void Parse_RttWithUnit_GivesThatDuration(string text, double ms)
    {
        var parsed = ProxyCommand.Create().Parse(["--target", "127.0.0.1:5000", "--rtt", text]);
        Assert.Empty(parsed.Errors);
        Assert.Equal(ms, parsed.GetValue<TimeSpan>("--rtt").TotalMilliseconds, 6);
    }

    [Theory]
    [InlineData("", "is not a duration")]
    [InlineData("fast", "is not a duration")]
    [InlineData("-5ms", "must be between")]
    [InlineData("NaNms", "is not a duration")]
    [InlineData("10", "needs a unit")]
    public void Parse_RttNonsenseOrWithoutUnit_ReportsWhy(string text, string why)
    {
        var errors = ProxyCommand.Create().Parse(["--target", "127.0.0.1:5000", "--rtt", text]).Errors;
        Assert.Contains(errors, e => e.Message.Contains(why, StringComparison.Ordinal));
    }

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
