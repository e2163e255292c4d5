using PerfLab.Common;

namespace PerfLab.Tests.Hosts;

/// <summary>
/// How the controller's end of a role's session tells a role that ended before it was ready, on a real process (a role
/// played by bash, as a local host's session runs).
/// </summary>
public sealed class RoleSessionTests
{
    [Fact]
    public async Task WaitReady_RoleExitsSayingNothing_NamesTheHostAndTheExitCode()
    {
        // CI once saw "the app ended before it was ready: no message" on a machine run at three times its cores; the exit
        // code tells a role that ended itself from a session killed by a signal (128 + N).
        await using var session = LocalRole.Start("app", "the app", "exit 3");

        var ex = await Assert.ThrowsAsync<PerfLabException>(() => session.WaitReadyAsync(TimeSpan.FromSeconds(30), CancellationToken.None));

        Assert.Equal($"{LocalRole.Host("app")}: the app ended before it was ready: no message (its session exited with code 3, "
            + "nothing on stderr)", ex.Message);
    }

    [Fact]
    public async Task WaitReady_SessionEndsWith255SayingNothing_NamesTheLostConnection()
    {
        // ssh's own exit (a link cut before the role was ready, as CI's link-cut test once did): the connection named.
        await using var session = LocalRole.Start("app", "the app", "exit 255");

        var ex = await Assert.ThrowsAsync<PerfLabException>(() => session.WaitReadyAsync(TimeSpan.FromSeconds(30), CancellationToken.None));

        Assert.Equal($"{LocalRole.Host("app")}: the connection to it failed or was lost, and ssh said nothing (exit 255): check that "
            + "ssh local answers.", ex.Message);
    }

    [Fact]
    public async Task WaitReady_RoleSaysWhyOnStderr_ThatLineIsTheReason()
    {
        await using var session = LocalRole.Start("db", "PostgreSQL", "echo 'first' >&2; echo 'dotnet: not found' >&2; exit 127");

        var ex = await Assert.ThrowsAsync<PerfLabException>(() => session.WaitReadyAsync(TimeSpan.FromSeconds(30), CancellationToken.None));

        Assert.Equal($"{LocalRole.Host("db")}: PostgreSQL ended before it was ready: dotnet: not found", ex.Message);
    }

    [Theory]
    // CI twice saw the app role's session end mid-trace with no word of why: what the role said last is the reason.
    [InlineData("echo 'failed heard no heartbeat from the controller for 8 s: stopped what it started'; exit 0",
        "heard no heartbeat from the controller for 8 s: stopped what it started")]
    [InlineData("echo 'Unhandled exception. System.IO.IOException: Broken pipe' >&2; exit 134",
        "Unhandled exception. System.IO.IOException: Broken pipe")]
    [InlineData("exit 137", "no message (its session exited with code 137, nothing on stderr)")]
    public async Task LostMidRun_RoleEndsAfterItWasReady_NamesWhatItSaidLast(string then, string named)
    {
        await using var session = LocalRole.Start("app", "the app", $"echo 'ready 1'; sleep 0.2; {then}");
        await session.WaitReadyAsync(TimeSpan.FromSeconds(30), CancellationToken.None);

        await session.Ended.WaitAsync(TimeSpan.FromSeconds(30));

        Assert.Equal($"{LocalRole.Host("app")}: lost mid-run: the app (its role's session ended before the run closed it: {named})",
            session.LostMidRun);
    }
}
