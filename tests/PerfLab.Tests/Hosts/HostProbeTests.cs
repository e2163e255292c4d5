using System.Diagnostics;
using PerfLab.Common;
using PerfLab.Hosts;

namespace PerfLab.Tests.Hosts;

/// <summary>
/// The clock probe on real processes standing in for the ssh session (bash on this machine): this machine's own clock
/// comes back within the probe's uncertainty, and a host that never answers, answers something else, or whose ssh
/// ends each fail saying which, not a made-up "ssh failed (exit 255): no message" as the probe once did on a busy CI.
/// </summary>
public sealed class HostProbeTests
{
    private static readonly HostRef Host = new("app", "app-1");

    [Fact]
    public async Task Clock_ThisMachinesOwnClock_OffsetWithinItsUncertainty()
    {
        var clock = await HostProbe.ClockAsync(Host, Bash(HostProbe.ClockScript), TimeSpan.FromSeconds(30), CancellationToken.None);

        // One clock read at both ends: the offset is what the round trip leaves uncertain, nothing more.
        Assert.True(Math.Abs(clock.OffsetMs) <= clock.UncertaintyMs + 0.5, $"offset {clock.OffsetMs} ms ± {clock.UncertaintyMs}");
        Assert.InRange(clock.RoundTripMs, 0, 1000);
    }

    [Fact]
    public async Task Clock_WallClockSteppedMidProbe_OffsetStillWithinItsUncertainty()
    {
        // The step of a clock both ends share, 23 ms (as on CI): the stand-in host adds it from its 10th answer on, this
        // machine's wall clock from its 18th reading on (two an exchange: the 9th exchange's end); so the 9th exchange
        // straddles it, and the later ones, answered at once where the earlier waited 30 ms, see it at both ends. Read
        // once before the probe, as the probe once did, the later exchanges would read 23 ms off.
        const double stepMs = 23;
        var readings = 0;
        WallClockAnchor Stepped()
        {
            var now = WallClockAnchor.Take();
            return ++readings > 17 ? now with { UnixMs = now.UnixMs + stepMs } : now;
        }
        const string host = "n=0; while read -r _; do n=$((n+1)); if [ $n -lt 10 ]; then sleep 0.03; echo $EPOCHREALTIME; "
            + "else t=${EPOCHREALTIME/./}; t=$((t+23000)); echo ${t:0:-6}.${t: -6}; fi; done";

        var clock = await HostProbe.ClockAsync(Host, Bash("LC_ALL=C exec bash -c '" + host + "'"), TimeSpan.FromSeconds(30),
            CancellationToken.None, Stepped);

        Assert.True(Math.Abs(clock.OffsetMs) <= clock.UncertaintyMs + 0.5, $"offset {clock.OffsetMs} ms ± {clock.UncertaintyMs}");
        Assert.Equal(2 * HostProbe.ClockExchanges, readings);
    }

    [Fact]
    public async Task Clock_WallClockSteppedInEveryExchange_FailsSayingSo()
    {
        // Each reading 23 ms later than the monotonic clock says: every exchange's two ends disagree, none is left.
        var readings = 0;
        WallClockAnchor Stepping()
        {
            var now = WallClockAnchor.Take();
            return now with { UnixMs = now.UnixMs + (23 * ++readings) };
        }

        var failure = await Assert.ThrowsAsync<PerfLabException>(() => HostProbe.ClockAsync(Host, Bash(HostProbe.ClockScript),
            TimeSpan.FromSeconds(30), CancellationToken.None, Stepping));

        Assert.StartsWith("app host 'app-1': this machine's wall clock stepped during every exchange of the clock probe",
            failure.Message, StringComparison.Ordinal);
        Assert.Equal(ExitCode.Environment, failure.ExitCode);
    }

    [Fact]
    public async Task Clock_NoAnswerInTime_FailsSayingSo()
    {
        var failure = await Assert.ThrowsAsync<PerfLabException>(() => HostProbe.ClockAsync(Host, Bash("exec sleep 30"),
            TimeSpan.FromSeconds(1), CancellationToken.None));

        Assert.Equal("app host 'app-1': its clock probe had no answer within 1 s: the host, or the link to it, answered too "
            + "slowly; check that ssh app-1 answers at once.", failure.Message);
        Assert.Equal(ExitCode.Unreachable, failure.ExitCode);
    }

    [Fact]
    public async Task Clock_FirstAnswerSlowerThanTheOthersMayBe_WaitedForItsOwnWindow()
    {
        // The first answer pays for the connection: 1.5 s here, past the 1 s the later ones get, within the first's 5 s.
        var slowStart = "sleep 1.5; " + HostProbe.ClockScript;

        var clock = await HostProbe.ClockAsync(Host, Bash(slowStart), TimeSpan.FromSeconds(1), CancellationToken.None,
            firstAnswerWithin: TimeSpan.FromSeconds(5));
        var failure = await Assert.ThrowsAsync<PerfLabException>(() => HostProbe.ClockAsync(Host, Bash(slowStart),
            TimeSpan.FromSeconds(1), CancellationToken.None));

        // This machine's own clock on both ends: no offset beyond what the probe says it cannot tell apart.
        Assert.True(Math.Abs(clock.OffsetMs) <= clock.UncertaintyMs + 0.5, $"offset {clock.OffsetMs} ms ± {clock.UncertaintyMs}");
        Assert.Contains("its clock probe had no answer within 1 s", failure.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Clock_LoginPrintsABanner_FailsNamingWhatCameBack()
    {
        var failure = await Assert.ThrowsAsync<PerfLabException>(() => HostProbe.ClockAsync(Host,
            Bash("read -r _; echo 'Welcome to app-1'; exec cat >/dev/null"), TimeSpan.FromSeconds(30), CancellationToken.None));

        Assert.Contains("its clock probe (bash's EPOCHREALTIME, bash 5 or newer) answered 'Welcome to app-1', not a time",
            failure.Message, StringComparison.Ordinal);
        Assert.Equal(ExitCode.Environment, failure.ExitCode);
    }

    [Fact]
    public async Task Clock_SshEnds_FailsWithItsOwnExitAndMessage()
    {
        var failure = await Assert.ThrowsAsync<PerfLabException>(() => HostProbe.ClockAsync(Host,
            Bash("echo 'root@10.0.0.2: Permission denied (publickey).' >&2; exit 255"), TimeSpan.FromSeconds(30),
            CancellationToken.None));

        Assert.StartsWith("app host 'app-1': the host refused the key", failure.Message, StringComparison.Ordinal);
        Assert.Equal(ExitCode.Unreachable, failure.ExitCode);
    }

    /// <summary>The session a local host's probe runs in: the script under bash here, as ssh would run it there.</summary>
    private static ProcessStartInfo Bash(string script) => new SshClient(null).StartInfo(new HostRef("app", HostRef.LocalName), script);
}
