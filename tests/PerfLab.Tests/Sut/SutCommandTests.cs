using System.Diagnostics;
using System.Globalization;
using System.Text.Json;
using System.Text.RegularExpressions;
using PerfLab.Common;
using PerfLab.Testing;

namespace PerfLab.Tests.Sut;

// `perflab sut start | status | stop` through the real CLI, on a database of its own and a cache folder of its own,
// so the registry (running.json) and the SUT's log are private to each test.
public sealed partial class SutCommandTests(PostgresFixture postgres) : IClassFixture<PostgresFixture>, IDisposable
{
    private readonly TempFolder _cache = new();

    private Dictionary<string, string> Environment => new() { ["PERFLAB_CACHE_DIR"] = _cache.Path };
    private string Registry => Path.Combine(_cache.Path, "sut", "running.json");

    [Fact]
    public async Task StartStatusStop_WithDataAccessSync_RunsThatVariantUntilStopped()
    {
        var db = await postgres.CreateDatabaseAsync();

        var start = await PerfLabProcess.RunAsync(Environment, "sut", "start", "--set", "DataAccess=sync",
            "--urls", "http://127.0.0.1:0", "--connection-string", db);
        var listening = ListeningLine().Match(start.Stdout);
        var pid = listening.Success ? int.Parse(listening.Groups["pid"].Value, CultureInfo.InvariantCulture) : -1;
        try
        {
            Assert.True(start.ExitCode == 0 && listening.Success, start.ToString());
            Assert.Contains("data access sync", start.Stdout);
            Assert.True(File.Exists(Registry), "sut start recorded nothing in the registry");
            var url = listening.Groups["url"].Value;

            var status = await PerfLabProcess.RunAsync(Environment, "sut", "status");
            Assert.True(status.ExitCode == 0, status.ToString());
            Assert.Contains($"SUT running at {url} (pid {pid}, net10.0)", status.Stdout);
            using (var info = JsonDocument.Parse(status.Stdout[status.Stdout.IndexOf('{')..]))
            {
                Assert.Equal("sync", info.RootElement.GetProperty("dataAccess").GetString());
            }

            using var client = new HttpClient { BaseAddress = new Uri(url), Timeout = TimeSpan.FromSeconds(10) };
            using var product = await client.GetAsync("/customer/orders/count");
            Assert.True(product.IsSuccessStatusCode, $"the SUT answered {(int)product.StatusCode}");

            var again = await PerfLabProcess.RunAsync(Environment, "sut", "start", "--urls", "http://127.0.0.1:0", "--connection-string", db);
            Assert.Equal(2, again.ExitCode);
            Assert.Contains($"a SUT is already running at {url} (pid {pid})", again.Stderr);

            var stop = await PerfLabProcess.RunAsync(Environment, "sut", "stop");
            Assert.True(stop.ExitCode == 0, stop.ToString());
            Assert.Contains($"stopped the SUT at {url} (pid {pid}).", stop.Stdout);
            Assert.False(IsAlive(pid), $"the SUT (pid {pid}) still runs after sut stop");
            Assert.False(File.Exists(Registry), "sut stop left the registry entry behind");
        }
        finally
        {
            KillIfAlive(pid);
        }
    }

    [Fact]
    public async Task StartInForeground_CtrlC_StopsTheSutAndRecordsNothing()
    {
        var db = await postgres.CreateDatabaseAsync();
        using var cli = new ForegroundCli(Environment, "sut", "start", "--foreground", "--urls", "http://127.0.0.1:0", "--connection-string", db);
        var pid = -1;
        try
        {
            pid = await cli.WaitForSutAsync(TimeSpan.FromSeconds(90));
            Assert.False(File.Exists(Registry), "a foreground SUT was recorded as left running");

            var signal = await ProcessRunner.RunAsync("kill", ["-INT", cli.Pid.ToString(CultureInfo.InvariantCulture)], null,
                TimeSpan.FromSeconds(10), default);
            Assert.Equal(0, signal.ExitCode);
            var exit = await cli.WaitAsync(TimeSpan.FromSeconds(30));

            Assert.True(exit == 0, cli.Output);
            Assert.Contains("stopping the SUT...", cli.Output);
            Assert.False(IsAlive(pid), $"the SUT (pid {pid}) outlived its foreground CLI");
        }
        finally
        {
            KillIfAlive(pid);
        }
    }

    [Fact]
    public async Task StartInForeground_SutDiesOnItsOwn_FailsWithTheTailOfItsLog()
    {
        var db = await postgres.CreateDatabaseAsync();
        using var cli = new ForegroundCli(Environment, "sut", "start", "--foreground", "--urls", "http://127.0.0.1:0", "--connection-string", db);
        var pid = -1;
        try
        {
            pid = await cli.WaitForSutAsync(TimeSpan.FromSeconds(90));

            KillIfAlive(pid);
            var exit = await cli.WaitAsync(TimeSpan.FromSeconds(30));

            Assert.True(exit == 1, cli.Output);
            Assert.Contains("the SUT exited with code 137:", cli.Output);
            Assert.Contains("  | ", cli.Output);
        }
        finally
        {
            KillIfAlive(pid);
        }
    }

    [Fact]
    public async Task Stop_WhenNoneRuns_SaysSoAndSucceeds()
    {
        var stop = await PerfLabProcess.RunAsync(Environment, "sut", "stop");

        Assert.Equal(0, stop.ExitCode);
        Assert.Equal("no SUT is running.", stop.Stdout.Trim());
    }

    [Fact]
    public async Task Status_WhenNoneRuns_SaysSoAndFails()
    {
        var status = await PerfLabProcess.RunAsync(Environment, "sut", "status");

        Assert.Equal(1, status.ExitCode);
        Assert.Equal("no SUT is running.", status.Stdout.Trim());
    }

    [Fact]
    public async Task Status_RegistryNamingAnEndedProcess_IsStaleAndRemoved()
    {
        using var ended = Process.Start(new ProcessStartInfo("true"))!;
        await ended.WaitForExitAsync();
        Directory.CreateDirectory(Path.GetDirectoryName(Registry)!);
        File.WriteAllText(Registry, $$"""{"Pid":{{ended.Id}},"Url":"http://127.0.0.1:1/","LogFile":"x.log","Framework":"net10.0","Settings":{ } }""");

        var status = await PerfLabProcess.RunAsync(Environment, "sut", "status");

        Assert.Equal(1, status.ExitCode);
        Assert.Equal("no SUT is running.", status.Stdout.Trim());
        Assert.False(File.Exists(Registry), "a stale registry entry was kept");
    }

    [Fact]
    public async Task Start_SetWithoutValue_IsAUsageErrorAndStartsNothing()
    {
        var start = await PerfLabProcess.RunAsync(Environment, "sut", "start", "--set", "DataAccess",
            "--connection-string", "Host=127.0.0.1;Port=1;Database=none");

        Assert.Equal(2, start.ExitCode);
        Assert.Contains("error: --set 'DataAccess' is not Key=Value, e.g. --set DataAccess=sync.", start.Stderr);
        Assert.False(File.Exists(Registry), "a refused start recorded a SUT");
    }

    public void Dispose() => _cache.Dispose();

    // A `perflab sut start --foreground` left running: its output collected as it comes, the SUT's pid taken from its
    // listening line once the CLI says it is ready.
    private sealed class ForegroundCli : IDisposable
    {
        private readonly Process _process;
        private readonly System.Text.StringBuilder _output = new();
        private readonly TaskCompletionSource _ready = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public ForegroundCli(IReadOnlyDictionary<string, string> environment, params string[] args)
        {
            _process = Process.Start(PerfLabProcess.WithSigintDefault(PerfLabProcess.StartInfo(environment, args)))!;
            _process.OutputDataReceived += (_, e) => Collect(e.Data);
            _process.ErrorDataReceived += (_, e) => Collect(e.Data);
            _process.BeginOutputReadLine();
            _process.BeginErrorReadLine();
        }

        public int Pid => _process.Id;

        public string Output
        {
            get
            {
                lock (_output)
                {
                    return _output.ToString();
                }
            }
        }

        public async Task<int> WaitForSutAsync(TimeSpan limit)
        {
            var exited = _process.WaitForExitAsync();
            var first = await Task.WhenAny(_ready.Task, exited).WaitAsync(limit);
            Assert.True(first == _ready.Task, $"perflab exited before the SUT was ready: {Output}");
            var listening = ListeningLine().Match(Output);
            Assert.True(listening.Success, Output);
            return int.Parse(listening.Groups["pid"].Value, CultureInfo.InvariantCulture);
        }

        public async Task<int> WaitAsync(TimeSpan limit)
        {
            await _process.WaitForExitAsync().WaitAsync(limit);
            _process.WaitForExit(); // drains the output events
            return _process.ExitCode;
        }

        public void Dispose()
        {
            if (!_process.HasExited)
            {
                _process.Kill(entireProcessTree: true);
            }
            _process.Dispose();
        }

        private void Collect(string? line)
        {
            if (line is null)
            {
                return;
            }
            lock (_output)
            {
                _output.AppendLine(line);
            }
            if (line.Contains("press Ctrl+C to stop it", StringComparison.Ordinal))
            {
                _ready.TrySetResult();
            }
        }
    }

    [GeneratedRegex(@"SUT listening on (?<url>\S+) \(pid (?<pid>\d+),")]
    private static partial Regex ListeningLine();

    private static bool IsAlive(int pid)
    {
        try
        {
            var stat = File.ReadAllText($"/proc/{pid.ToString(CultureInfo.InvariantCulture)}/stat");
            return stat[(stat.LastIndexOf(')') + 2)..][0] is not ('Z' or 'X');
        }
        catch (IOException)
        {
            return false;
        }
    }

    // A failed assertion must not leave a detached SUT running on the machine.
    private static void KillIfAlive(int pid)
    {
        if (pid <= 0 || !IsAlive(pid))
        {
            return;
        }
        try
        {
            using var process = Process.GetProcessById(pid);
            process.Kill(entireProcessTree: true);
        }
        catch (Exception ex) when (ex is ArgumentException or InvalidOperationException)
        {
            // Gone meanwhile.
        }
    }
}
