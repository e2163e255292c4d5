using PerfLab.Common;
using PerfLab.Hosts;

namespace PerfLab.Tests.Hosts;

/// <summary>A role's loop over its session's input: the end of input stops it quietly, a failing request does not.</summary>
public sealed class RoleLinesTests
{
    [Fact]
    public async Task EachLine_HandlerFailsOnALine_EndsNamingTheLinesKindAndTheError()
    {
        // An IOException from a request's work (a diagnostics socket) once ended the app role as if its input had ended:
        // the session closed with no word of why (CI, twice, mid-trace).
        var lines = new RoleLines(new StringReader("check\ncounters 500\ntrace 5000\n"), TextWriter.Null);
        var handled = new List<string>();

        var ex = await Assert.ThrowsAsync<PerfLabException>(() => lines.EachLineAsync(line =>
        {
            handled.Add(line);
            return line.StartsWith("counters", StringComparison.Ordinal)
                ? throw new IOException("the diagnostics socket closed")
                : Task.CompletedTask;
        }, CancellationToken.None));

        Assert.Equal(["check", "counters 500"], handled);
        Assert.Equal("stopped on an error while handling 'counters': IOException: the diagnostics socket closed", ex.Message);
        Assert.Equal(ExitCode.Failed, ex.ExitCode);
    }

    [Fact]
    public async Task EachLine_HandlerTimesOutUncancelled_EndsNamingTheTimeout()
    {
        // A request's own timeout (an HttpClient's) is an error of that request, not the role being stopped.
        var lines = new RoleLines(new StringReader("check\n"), TextWriter.Null);

        var ex = await Assert.ThrowsAsync<PerfLabException>(() =>
            lines.EachLineAsync(_ => throw new TaskCanceledException("timed out after 10 s"), CancellationToken.None));

        Assert.Equal("stopped on an error while handling 'check': TaskCanceledException: timed out after 10 s", ex.Message);
    }

    [Fact]
    public async Task EachLine_InputEnds_EveryLineHandledAndNoError()
    {
        var lines = new RoleLines(new StringReader("check\ntrace 5000\n"), TextWriter.Null);
        var handled = new List<string>();

        await lines.EachLineAsync(line =>
        {
            handled.Add(line);
            return Task.CompletedTask;
        }, CancellationToken.None);

        Assert.Equal(["check", "trace 5000"], handled);
    }
}
