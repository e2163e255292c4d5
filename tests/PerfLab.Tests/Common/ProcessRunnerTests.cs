using System.ComponentModel;
using System.Diagnostics;
using System.Globalization;
using PerfLab.Common;

namespace PerfLab.Tests.Common;

// The one child-process runner against real processes: timeouts and the silence watchdog kill the whole tree, output
// lines arrive whole and in order, a missing program is a clear error, and a launched process stops on SIGTERM or,
// failing that, by a kill of its tree.
public sealed class ProcessRunnerTests
{
    private static readonly string Temp = Path.GetTempPath();

    [Fact]
    public async Task RunAsync_CommandPastItsTimeout_IsKilledWithItsChildren()
    {
        var lines = new List<string>();
        var spec = new ProcessSpec("/bin/sh", ["-c", "sleep 60 & echo $$ $!; wait"])
        {
            Timeout = TimeSpan.FromSeconds(1),
            OnOutputLine = lines.Add,
        };

        var error = await Assert.ThrowsAsync<PerfLabException>(() => ProcessRunner.RunAsync(spec, default));

        Assert.Equal("sh did not finish within 1 s.", error.Message);
        Assert.Equal(ExitCode.Environment, error.ExitCode);
        Assert.IsType<TimeoutException>(error.InnerException);
        var pids = Assert.Single(lines).Split(' ').Select(p => int.Parse(p, CultureInfo.InvariantCulture)).ToList();
        Assert.Equal(2, pids.Count);
        foreach (var pid in pids)
        {
            Assert.True(await GoneWithinAsync(pid, TimeSpan.FromSeconds(5)), $"process {pid} of the timed-out tree still runs");
        }
    }

    [Fact]
    public async Task RunAsync_ChildSilentBeyondTheLimit_IsStoppedByTheWatchdogAndNamed()
    {
        var lines = new List<string>();
        var spec = new ProcessSpec("/bin/sh", ["-c", "echo $$; exec sleep 60"])
        {
            WorkingDirectory = Temp,
            SilenceLimit = TimeSpan.FromSeconds(1),
            OnOutputLine = lines.Add,
        };

        var error = await Assert.ThrowsAsync<PerfLabException>(() => ProcessRunner.RunAsync(spec, default));

        Assert.IsType<TimeoutException>(error.InnerException);
        Assert.Equal(ExitCode.Environment, error.ExitCode);
        Assert.Equal("'sh -c echo $$; exec sleep 60 ...' printed nothing for 1s and was stopped as hung.", error.Message);
        var pid = int.Parse(Assert.Single(lines), CultureInfo.InvariantCulture);
        Assert.True(await GoneWithinAsync(pid, TimeSpan.FromSeconds(5)), $"the hung child {pid} is still running");
    }

    [Fact]
    public async Task RunAsync_ChildPrintingMoreOftenThanTheLimit_RunsToItsEnd()
    {
        var lines = new List<string>();
        var spec = new ProcessSpec("/bin/sh", ["-c", "for i in 1 2 3 4 5 6; do echo $i; sleep 0.4; done; exit 3"])
        {
            SilenceLimit = TimeSpan.FromSeconds(1.5),
            OnOutputLine = lines.Add,
        };

        var exitCode = await ProcessRunner.RunAsync(spec, default);

        Assert.Equal(3, exitCode);
        Assert.Equal(["1", "2", "3", "4", "5", "6"], lines);
    }

    [Fact]
    public async Task RunAsync_ManyLinesOnBothStreams_ArriveWholeAndInOrder()
    {
        var output = new List<string>();
        var errors = new List<string>();
        var spec = new ProcessSpec("/bin/sh", ["-c", "seq 1 3000; seq 1 500 >&2"])
        {
            OnOutputLine = output.Add,
            OnErrorLine = errors.Add,
        };

        var exitCode = await ProcessRunner.RunAsync(spec, default);

        Assert.Equal(0, exitCode);
        Assert.Equal(Enumerable.Range(1, 3000).Select(i => i.ToString(CultureInfo.InvariantCulture)), output);
        Assert.Equal(Enumerable.Range(1, 500).Select(i => i.ToString(CultureInfo.InvariantCulture)), errors);
    }

    [Fact]
    public async Task RunAsync_MissingExecutable_IsAClearPerfLabException()
    {
        var spec = new ProcessSpec("/nonexistent/perflab-no-such-program", ["--version"]);

        var error = await Assert.ThrowsAsync<PerfLabException>(() => ProcessRunner.RunAsync(spec, default));

        Assert.Equal(ExitCode.Environment, error.ExitCode);
        Assert.StartsWith("could not start '/nonexistent/perflab-no-such-program': ", error.Message);
        Assert.IsType<Win32Exception>(error.InnerException);
    }

    [Fact]
    public async Task RunAsync_Cancelled_KillsTheTreeAndThrowsCancellation()
    {
        var lines = new List<string>();
        var started = new TaskCompletionSource();
        var spec = new ProcessSpec("/bin/sh", ["-c", "echo $$; exec sleep 60"])
        {
            OnOutputLine = line =>
            {
                lines.Add(line);
                started.TrySetResult();
            },
        };
        using var cts = new CancellationTokenSource();

        var run = ProcessRunner.RunAsync(spec, cts.Token);
        await started.Task.WaitAsync(TimeSpan.FromSeconds(10));
        await cts.CancelAsync();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => run);
        var pid = int.Parse(Assert.Single(lines), CultureInfo.InvariantCulture);
        Assert.True(await GoneWithinAsync(pid, TimeSpan.FromSeconds(5)), $"the cancelled child {pid} is still running");
    }

    [Fact]
    public async Task RunAsync_ShortTool_ReturnsExitCodeAndStdoutThenStderr()
    {
        var result = await ProcessRunner.RunAsync("/bin/sh", ["-c", "echo err >&2; echo out; exit 4"], null,
            TimeSpan.FromSeconds(30), default);

        Assert.Equal(4, result.ExitCode);
        Assert.Equal("out\nerr", result.Output);
    }

    [Fact]
    public async Task RunAsync_ShortToolMissing_SaysItCannotRunIt()
    {
        var error = await Assert.ThrowsAsync<PerfLabException>(() => ProcessRunner.RunAsync(
            "/nonexistent/pg_ctl", ["status"], null, TimeSpan.FromSeconds(30), default));

        Assert.Equal(ExitCode.Environment, error.ExitCode);
        Assert.StartsWith("cannot run /nonexistent/pg_ctl: ", error.Message);
    }

    [Fact]
    public async Task RunAsync_AsAnotherUser_RunsAsThatUser()
    {
        // Only root may switch users (as perflab does for its PostgreSQL); elsewhere there is nothing to check.
        if (!ProcessRunner.IsRoot)
        {
            return;
        }

        var result = await ProcessRunner.RunAsync("id", ["-un"], "postgres", TimeSpan.FromSeconds(30), default);

        Assert.Equal(0, result.ExitCode);
        Assert.Equal("postgres", result.Output);
    }

    [Fact]
    public async Task Launch_StoppedPolitely_EndsOnSigterm()
    {
        using var process = ProcessRunner.Launch(new ProcessSpec("sleep", ["60"]));
        var clock = Stopwatch.StartNew();

        await ProcessTree.StopAsync(process, TimeSpan.FromSeconds(30));

        Assert.True(process.HasExited);
        Assert.True(clock.Elapsed < TimeSpan.FromSeconds(20), $"sleep took {clock.Elapsed} to stop on SIGTERM");
    }

    [Fact]
    public async Task Launch_IgnoringSigterm_IsKilledWithItsChildrenAfterTheGrace()
    {
        var pidFile = Path.Combine(Temp, $"perflab-runner-{Guid.NewGuid():N}.pid");
        using var process = ProcessRunner.Launch(new ProcessSpec("/bin/sh",
            ["-c", $"trap '' TERM; sleep 60 & echo $! > {pidFile}.tmp; mv {pidFile}.tmp {pidFile}; wait"]));
        var child = await ReadPidAsync(pidFile);

        await ProcessTree.StopAsync(process, TimeSpan.FromSeconds(1));

        Assert.True(process.HasExited);
        Assert.True(await GoneWithinAsync(child, TimeSpan.FromSeconds(5)), $"the child {child} outlived the kill");
        File.Delete(pidFile);
    }

    private static async Task<int> ReadPidAsync(string pidFile)
    {
        var deadline = Stopwatch.StartNew();
        while (!File.Exists(pidFile))
        {
            Assert.True(deadline.Elapsed < TimeSpan.FromSeconds(10), "the shell never wrote its child's pid");
            await Task.Delay(20);
        }
        return int.Parse(File.ReadAllText(pidFile).Trim(), CultureInfo.InvariantCulture);
    }

    // Gone means no /proc entry, or a zombie: a killed grandchild waits there until whoever adopted it reaps it.
    private static async Task<bool> GoneWithinAsync(int pid, TimeSpan limit)
    {
        var deadline = Stopwatch.StartNew();
        while (deadline.Elapsed < limit)
        {
            if (IsGone(pid))
            {
                return true;
            }
            await Task.Delay(20);
        }
        return IsGone(pid);
    }

    private static bool IsGone(int pid)
    {
        try
        {
            var stat = File.ReadAllText($"/proc/{pid.ToString(CultureInfo.InvariantCulture)}/stat");
            return stat[(stat.LastIndexOf(')') + 2)..][0] is 'Z' or 'X';
        }
        catch (IOException)
        {
            return true;
        }
    }
}
