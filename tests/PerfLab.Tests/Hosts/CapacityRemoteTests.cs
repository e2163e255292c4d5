using PerfLab.Common;

namespace PerfLab.Tests.Hosts;

/// <summary>`perflab capacity` and a URL off loopback: refused unless --allow-remote, which its message names.</summary>
public sealed class CapacityRemoteTests
{
    [Fact]
    public async Task Capacity_UrlOffLoopbackWithoutAllowRemote_Exit2NamingTheOptionBeforeAnythingIsSent()
    {
        // TEST-NET-1 (RFC 5737): nothing is ever sent there; the refusal comes first.
        var cli = await PerfLabProcess.RunAsync("capacity", "http://192.0.2.1:8080/", "--slo", "p99<100ms", "-d", "1s");

        Assert.True(cli.ExitCode == (int)ExitCode.Usage, cli.ToString());
        Assert.Contains("refusing to send load to 192.0.2.1", cli.Stderr, StringComparison.Ordinal);
        Assert.Contains("without --allow-remote", cli.Stderr, StringComparison.Ordinal);
        Assert.Empty(cli.Stdout);
    }
}
