using PerfLab.Common;

namespace PerfLab.Tests.Hosts;

/// <summary>
/// An upload experiment with generators: refused before any host is contacted (docs/hosts.md, "Not done yet"): its
/// answer is one upload's time over one connection, sent by the upload client on this machine, not a load to share.
/// </summary>
public sealed class UploadHostsTests
{
    [Fact]
    public async Task Run_UploadExperimentWithGenerators_Exit2NamingWhyAndTheFix_NoHostContacted()
    {
        var folder = TestCaches.NewFolder();
        var hosts = Path.Combine(folder, "hosts.yaml");
        // Names under .invalid (RFC 6761) resolve nowhere: a refusal after contacting a host would exit 4 instead.
        await File.WriteAllTextAsync(hosts, "app: app-host.invalid\nload: [gen-host.invalid]\n");
        var output = Path.Combine(folder, "out");

        var cli = await PerfLabProcess.RunAsync("run", "http2-window", "--profile", "smoke", "--hosts", hosts, "--out", output);

        Assert.True(cli.ExitCode == (int)ExitCode.Usage, cli.ToString());
        Assert.Contains("http2-window times each transfer over one connection through a latency proxy on this machine",
            cli.Stderr, StringComparison.Ordinal);
        Assert.Contains("give load: [local] for it", cli.Stderr, StringComparison.Ordinal);
        Assert.DoesNotContain("host 'gen-host.invalid'", cli.Stderr + cli.Stdout, StringComparison.Ordinal);
        Assert.False(Directory.Exists(output));
    }
}
