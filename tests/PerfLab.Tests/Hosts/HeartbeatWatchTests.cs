using PerfLab.Hosts;

namespace PerfLab.Tests.Hosts;

/// <summary>
/// The controller's watch on a role's heartbeat, on a real process (a role played by bash on this machine, as a local
/// host's session runs): a role that beat once, said ready and then went silent while its session stays open (hung, or
/// stopped) has its session ended by the controller, and the failure names the host and the silence.
/// </summary>
public sealed class HeartbeatWatchTests
{
    [Fact]
    public async Task RoleSession_RoleGoesSilentAfterReady_SessionEndedAndLostNamesTheSilence()
    {
        var host = new HostRef("app", HostRef.LocalName);
        await using var session = RoleSession.Start(new SshClient(null), host, "the app",
            "echo alive; echo 'ready http://127.0.0.1:1 log'; exec sleep 120", input: null, say: null, silence: TimeSpan.FromSeconds(1));

        Assert.Equal("http://127.0.0.1:1 log", await session.WaitReadyAsync(TimeSpan.FromSeconds(30), CancellationToken.None));
        // Bounded by far more than the second of silence: a stalled machine delays the watch, it cannot fake a heartbeat.
        await session.Ended.WaitAsync(TimeSpan.FromSeconds(60));

        Assert.True(session.HasExited);
        Assert.Equal("sent no heartbeat for 1 s (the link to its host is lost, or the role hangs)", session.Lost);
    }

    [Fact]
    public async Task RoleSession_RoleThatNeverBeats_IsNotTakenAsLost()
    {
        // A role driven without heartbeats (older perflab, a test) ends when it ends, not on the watch.
        var host = new HostRef("app", HostRef.LocalName);
        await using var session = RoleSession.Start(new SshClient(null), host, "the app",
            "echo 'ready x'; sleep 2; echo done", input: null, say: null, silence: TimeSpan.FromMilliseconds(200));

        await session.WaitReadyAsync(TimeSpan.FromSeconds(30), CancellationToken.None);
        await session.Ended.WaitAsync(TimeSpan.FromSeconds(60));

        Assert.Equal(0, session.ExitCode);
        Assert.Null(session.Lost);
    }

    [Fact]
    public async Task RoleSession_RoleSendsOtherLinesButNoHeartbeatForLongerThanTheSilence_IsNotTakenAsLost()
    {
        // A role busy sending a file (a trace's chunks) may hold its output past its heartbeat's turn: its lines are signs
        // of life. Without them counted, the watch cut this session after 1 s (CI saw a trace cut mid-transfer so).
        var host = new HostRef("app", HostRef.LocalName);
        await using var session = RoleSession.Start(new SshClient(null), host, "the app",
            "echo alive; echo 'ready x'; for i in $(seq 1 30); do echo \"log $i\"; sleep 0.1; done", input: null, say: null,
            silence: TimeSpan.FromSeconds(1));

        await session.WaitReadyAsync(TimeSpan.FromSeconds(30), CancellationToken.None);
        await session.Ended.WaitAsync(TimeSpan.FromSeconds(60));

        Assert.Null(session.Lost);
        Assert.Equal(0, session.ExitCode);
        Assert.Equal("  | 30", session.TailOfLog(1));
    }

    [Fact]
    public async Task RoleSession_FirstLineLong_ArrivesWholeBeforeAnyHeartbeat()
    {
        // The launch line is written before the first beat, never beside it: the timer beats at once on another thread,
        // and two writers once split an app's launch with "alive" (the role read ':' as its JSON) or failed the write.
        var host = new HostRef("app", HostRef.LocalName);
        var input = "order-" + new string('x', 200_000);
        for (var attempt = 0; attempt < 10; attempt++)
        {
            await using var session = RoleSession.Start(new SshClient(null), host, "the app",
                "read -r first; echo \"ready ${first:0:8} ${#first}\"; exec cat >/dev/null", input, say: null);

            Assert.Equal("order-xx 200006", await session.WaitReadyAsync(TimeSpan.FromSeconds(30), CancellationToken.None));
        }
    }

    [Fact]
    public async Task AppRole_ControllerBeatsOnceThenFallsSilent_RoleEndsSayingWhy()
    {
        // The real role (perflab host app): it hears one beat, then none; within the heartbeat's silence and a beat's
        // check it stops and says why on its output, where a controller too busy to beat (not a cut link) still reads it.
        var host = new HostRef("app", HostRef.LocalName);
        var role = $"(echo alive; sleep 60) | dotnet '{PerfLabProcess.CliDll}' host app --listen 127.0.0.1";
        await using var session = RoleSession.Start(new SshClient(null), host, "the app", role, input: null, say: null);

        var failure = await Assert.ThrowsAsync<PerfLab.Common.PerfLabException>(
            () => session.WaitReadyAsync(TimeSpan.FromSeconds(120), CancellationToken.None));

        Assert.Contains("the app ended before it was ready: heard no heartbeat from the controller for 8 s", failure.Message,
            StringComparison.Ordinal);
    }
}
