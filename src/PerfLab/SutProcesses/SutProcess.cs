using System.Diagnostics;
using System.Net.Http.Json;
using PerfLab.Common;

namespace PerfLab.SutProcesses;

/// <summary>
/// One running SUT process. Its output goes straight to a log file (the shell redirects it), so that no pump in
/// perflab's own process competes with the load generator for CPU.
/// </summary>
public sealed class SutProcess : IAsyncDisposable
{
    /// <summary>The line the SUT prints once Kestrel listens (PerfLab.Sut.Hosting.Readiness).</summary>
    public const string ReadinessPrefix = "perflab-sut: listening on ";

    private static readonly TimeSpan ReadinessTimeout = TimeSpan.FromSeconds(60);
    private static readonly TimeSpan StopGrace = TimeSpan.FromSeconds(10);

    private SutProcess(Process process, Uri baseAddress, string logFile, bool detached, bool http2Only)
    {
        Http2Only = http2Only;
        Process = process;
        BaseAddress = baseAddress;
        LogFile = logFile;
        Detached = detached;
    }

    public Process Process { get; }
    public int Pid => Process.Id;
    public Uri BaseAddress { get; }
    public string LogFile { get; }
    public bool Detached { get; }
    /// <summary>Kestrel speaks only HTTP/2 here (h2c, prior knowledge): clients must ask for exactly HTTP/2.</summary>
    public bool Http2Only { get; }
    /// <summary>The terminal the SUT writes to (Console=terminal), or null when its output goes to the log file.</summary>
    public PseudoTerminal? Terminal { get; private init; }

    /// <summary>Starts the SUT and waits for its readiness line; a SUT that exits first fails with the tail of its log.</summary>
    /// <param name="detached">Keep it running after perflab exits (own session, no terminal), as `perflab sut start` does.</param>
    public static async Task<SutProcess> StartAsync(SutLaunch launch, bool detached = false,
        IProgress<string>? progress = null, CancellationToken ct = default)
    {
        var (fileName, leading) = await SutBinaries.ResolveAsync(launch.Framework, progress, ct);
        var logFile = launch.LogFile
            ?? Path.Combine(PerfLabPaths.CacheRoot, "sut", "logs", $"sut-{DateTime.UtcNow:yyyyMMdd-HHmmss-fff}.log");
        Directory.CreateDirectory(Path.GetDirectoryName(Path.GetFullPath(logFile))!);

        // Console=terminal: the SUT's output goes to a pseudo-terminal that perflab reads into the log file.
        var terminal = PseudoTerminal.OpenFor(launch, detached, logFile);
        var process = ProcessRunner.Launch(LaunchSpec(launch, fileName, leading, terminal?.SlavePath ?? logFile, detached));
        try
        {
            var address = await WaitForReadinessAsync(process, logFile, ct);
            return new SutProcess(process, address, logFile, detached, SutLaunch.IsHttp2Only(launch.Settings)) { Terminal = terminal };
        }
        catch
        {
            await ProcessTree.StopAsync(process, StopGrace);
            process.Dispose();
            terminal?.Dispose();
            throw;
        }
    }

    // The shell sends the SUT's output to its log file and execs it: the pid perflab holds is the SUT's own.
    private static ProcessSpec LaunchSpec(SutLaunch launch, string fileName, IReadOnlyList<string> leading, string logFile,
        bool detached)
    {
        var arguments = new List<string> { "-c", $"exec \"$@\" </dev/null >\"${PerfLabSettings.SutLog}\" 2>&1", "perflab-sut" };
        if (detached)
        {
            arguments.Add("setsid");
        }
        if (launch.CpuSet is not null)
        {
            arguments.AddRange(["taskset", "-c", launch.CpuSet]);
        }
        arguments.Add(fileName);
        arguments.AddRange(leading);
        arguments.AddRange(["--urls", launch.Urls]);

        var environment = new Dictionary<string, string>
        {
            [PerfLabSettings.SutLog] = logFile,
            ["DOTNET_CLI_TELEMETRY_OPTOUT"] = "1",
        };
        if (launch.ConnectionString is not null)
        {
            environment[SutLaunch.EnvironmentName("ConnectionStrings:AdventureWorks")] = launch.ConnectionString;
        }
        foreach (var (key, value) in launch.Settings)
        {
            environment[SutLaunch.EnvironmentName(key)] = value;
        }
        foreach (var (key, value) in launch.Environment)
        {
            environment[key] = value;
        }
        if (launch.DiagnosticsToken is { } token)
        {
            environment[SutLaunch.DiagnosticsTokenVariable] = token;
        }
        return new ProcessSpec("/bin/sh", arguments) { Environment = environment };
    }

    private static async Task<Uri> WaitForReadinessAsync(Process process, string logFile, CancellationToken ct)
    {
        var deadline = Stopwatch.StartNew();
        while (deadline.Elapsed < ReadinessTimeout)
        {
            ct.ThrowIfCancellationRequested();
            var line = ReadLines(logFile).FirstOrDefault(l => l.StartsWith(ReadinessPrefix, StringComparison.Ordinal));
            if (line is not null)
            {
                var url = line[ReadinessPrefix.Length..].Split(' ')[0];
                return new Uri(url.Replace("0.0.0.0", "127.0.0.1", StringComparison.Ordinal)
                    .Replace("[::]", "127.0.0.1", StringComparison.Ordinal));
            }
            if (process.HasExited)
            {
                throw new PerfLabException(
                    $"the SUT exited with code {process.ExitCode} before it was ready. Its log ({logFile}) ends with:" +
                    Environment.NewLine + Tail(logFile, 15), ExitCode.Failed);
            }
            // Polling the log file for the readiness line: the SUT writes it straight to the file.
            await Task.Delay(50, ct);
        }
        throw new PerfLabException(
            $"the SUT did not report ready within {ReadinessTimeout.TotalSeconds:0} s. Its log ({logFile}) ends with:" +
            Environment.NewLine + Tail(logFile, 15), ExitCode.Failed);
    }

    /// <summary>Reads GET /info: what the SUT says is in effect.</summary>
    public async Task<SutInfo> GetInfoAsync(CancellationToken ct = default)
    {
        // As long as readiness may take: a first /info on a busy host (load average 60) took over 10 s and failed the run.
        using var client = CreateClient(ReadinessTimeout);
        try
        {
            return await client.GetFromJsonAsync("/info", SutInfoJsonContext.Default.SutInfo, ct)
                ?? throw new PerfLabException("the SUT answered /info with nothing.", ExitCode.Failed);
        }
        catch (TaskCanceledException) when (!ct.IsCancellationRequested)
        {
            throw new PerfLabException($"the SUT did not answer /info within {ReadinessTimeout.TotalSeconds:0} s although it had " +
                "reported ready: the host may be overloaded.", ExitCode.Failed);
        }
    }

    /// <summary>An HttpClient for this SUT, speaking the HTTP version it serves.</summary>
    public HttpClient CreateClient(TimeSpan timeout, Uri? through = null) => ClientFor(through ?? BaseAddress, Http2Only, timeout);

    /// <summary>A client that speaks what the SUT at <paramref name="baseAddress"/> listens for: HTTP/2 (h2c) or HTTP/1.1.</summary>
    public static HttpClient ClientFor(Uri baseAddress, bool http2Only, TimeSpan timeout) => new()
    {
        BaseAddress = baseAddress,
        Timeout = timeout,
        DefaultRequestVersion = http2Only ? System.Net.HttpVersion.Version20 : System.Net.HttpVersion.Version11,
        DefaultVersionPolicy = HttpVersionPolicy.RequestVersionExact,
    };

    public string TailOfLog(int lines = 15) => Tail(LogFile, lines);

    public static string Tail(string logFile, int lines) =>
        string.Join(Environment.NewLine, ReadLines(logFile).TakeLast(lines).Select(l => "  | " + l));

    private static IEnumerable<string> ReadLines(string file)
    {
        if (!File.Exists(file))
        {
            return [];
        }
        using var stream = new FileStream(file, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete);
        using var reader = new StreamReader(stream);
        return reader.ReadToEnd().Split('\n', StringSplitOptions.RemoveEmptyEntries).Select(l => l.TrimEnd('\r')).ToList();
    }

    /// <summary>Stops the SUT: SIGTERM, then SIGKILL after a grace period.</summary>
    public async Task StopAsync() => await ProcessTree.StopAsync(Process, StopGrace);

    /// <summary>Stops a SUT that another perflab process started (by pid).</summary>
    public static Task<bool> StopByPidAsync(int pid) => ProcessTree.StopByPidAsync(pid, StopGrace);

    public async ValueTask DisposeAsync()
    {
        if (!Detached)
        {
            await StopAsync();
        }
        Process.Dispose();
        Terminal?.Dispose();
    }
}
