using System.Diagnostics;
using PerfLab.Common;

namespace PerfLab.Tests.Hosts;

/// <summary>
/// A generator's link cut inside its namespace mid-run (the link down: no FIN, no RST, the sessions left open on both
/// ends): its role hears no heartbeat and ends itself and its load, and the controller's ssh, hearing nothing back,
/// fails the run naming the host.
/// </summary>
public sealed class LinkLossTests
{
    [Fact]
    public async Task Load_GeneratorsLinkCutMidRun_ItsRoleEndsWithin15Seconds_TheRunFailsNamingTheHost()
    {
        using var lab = NetnsLab.Create(["app", "gen-1", "gen-2"]);
        using var sut = RemoteLoadTests.StartSut(lab);
        var file = HostsCheckTests.Write(lab, "ssh-config: ./ssh_config\napp: app\nload: [gen-1, gen-2]\n");
        var run = HostsCheckTests.RunInController(lab, "load", RemoteLoadTests.Url(lab), "-R", "20", "-c", "8", "-d", "60s",
            "--hosts", file);
        await RemoteLoadTests.WaitForRoleAsync(lab, "gen-2", run);
        Assert.False(run.IsCompleted, run.IsCompleted ? (await run).ToString() : "");

        lab.CutLink("gen-2");
        var cut = Stopwatch.StartNew();
        while (lab.ProcessesBesidesSshd("gen-2").Count > 0 && cut.Elapsed < TimeSpan.FromSeconds(15))
        {
            await Task.Delay(100);
        }
        var left = lab.ProcessesBesidesSshd("gen-2");
        var result = await run;

        Assert.Empty(left);
        Assert.True(result.ExitCode == (int)ExitCode.Failed, result.ToString());
        Assert.Contains("load host 'gen-2'", result.Stderr, StringComparison.Ordinal);
        await HostsRunTests.AssertNothingLeftAsync(lab, "gen-1");
    }
}
