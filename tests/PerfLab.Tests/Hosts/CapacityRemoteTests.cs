using PerfLab.Common;

namespace PerfLab.Tests.Hosts;

/// <summary>
/// `perflab capacity` and a URL off loopback: refused unless --allow-remote, which its message names; with --hosts, a URL
/// other than the file's app host is refused before any host is contacted.
/// </summary>
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

    [Fact]
    public async Task Capacity_HostsFileAndAUrlNotItsAppHost_Exit2NamingTheAppHost()
    {
        var folder = TestCaches.NewFolder();
        var hosts = Path.Combine(folder, "hosts.yaml");
        await File.WriteAllTextAsync(hosts, "app: app-host\nload: [gen-host]\n");

        var cli = await PerfLabProcess.RunAsync("capacity", "http://127.0.0.1:9/", "--slo", "p99<100ms", "--hosts", hosts);

        Assert.True(cli.ExitCode == (int)ExitCode.Usage, cli.ToString());
        Assert.Contains("with --hosts the target must be the app host", cli.Stderr, StringComparison.Ordinal);
        Assert.Contains("app-host", cli.Stderr, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("p99<5ms", "gates its answer only: --threshold \"capacity>=N\" (got 'p99<5ms')")]
    [InlineData("capacity>=5ms", "capacity is a plain number of requests per second")]
    public async Task Capacity_AGateItCannotCheck_Exit2BeforeAnythingIsSent(string gate, string message)
    {
        // Port 9 (discard): nothing listens; a request sent would fail the search, not exit 2 with this message.
        var cli = await PerfLabProcess.RunAsync("capacity", "http://127.0.0.1:9/", "--slo", "p99<100ms", "--threshold", gate);

        Assert.True(cli.ExitCode == (int)ExitCode.Usage, cli.ToString());
        Assert.Contains(message, cli.Stderr, StringComparison.Ordinal);
        Assert.Empty(cli.Stdout);
    }
}
