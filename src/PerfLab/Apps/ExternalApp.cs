using System.Net;
using PerfLab.Common;

namespace PerfLab.Apps;

/// <summary>
/// A user's app as an app under test: published from its project (or a git ref of it), a built DLL, or a command;
/// started on a free port of loopback (or of <paramref name="listen"/>, the address of the app's host when its role
/// starts it there) that it is told through --urls, ASPNETCORE_URLS or {port}; ready once its readiness path answers
/// 2xx; its output in a log file, as the built-in SUT's.
/// </summary>
public sealed class ExternalApp(AppLaunch launch, IPAddress? listen = null) : IAppUnderTest
{
    private const string LogVariable = "PERFLAB_APP_LOG";
    private string? _dll;

    public async Task PrepareAsync(IProgress<string>? progress, CancellationToken ct) =>
        _dll = await BuildAsync(launch.Source, progress, ct);

    /// <summary>The DLL the app runs from: its project published in Release first (cached), or its DLL; null for a command.</summary>
    /// <exception cref="PerfLabException">The project does not build, or the DLL does not exist.</exception>
    public static async Task<string?> BuildAsync(AppSource source, IProgress<string>? progress, CancellationToken ct) => source.Kind switch
    {
        AppSourceKind.Project => (await AppBuilds.PublishAsync(source.Path, source.GitRef, progress, ct)).Dll,
        AppSourceKind.Dll when !File.Exists(source.Path) => throw new PerfLabException(
            $"the app's DLL {source.Path} does not exist; build it first or give its project instead.", ExitCode.Usage),
        AppSourceKind.Dll => Path.GetFullPath(source.Path),
        _ => null,
    };

    public async Task<IRunningApp> StartAsync(string logFile, IProgress<string>? progress, CancellationToken ct)
    {
        if (launch.Source.Kind != AppSourceKind.Command && _dll is null)
        {
            await PrepareAsync(progress, ct);
        }
        Directory.CreateDirectory(Path.GetDirectoryName(Path.GetFullPath(logFile))!);
        var ip = listen ?? IPAddress.Loopback;
        var host = ip.AddressFamily == System.Net.Sockets.AddressFamily.InterNetworkV6 ? $"[{ip}]" : ip.ToString();
        var address = new Uri($"http://{host}:{LoopbackPorts.PickFree(ip)}/");
        var process = ProcessRunner.Launch(Spec(address, logFile));
        try
        {
            var pid = await AppReadiness.WaitAsync(process, address, launch.ReadyPath, launch.ReadyTimeout, logFile, ct);
            return new RunningApp(process, pid, address, logFile, launch);
        }
        catch
        {
            await ProcessTree.StopAsync(process, RunningApp.StopGrace);
            process.Dispose();
            throw;
        }
    }

    // /bin/sh sends the app's output to its log file and execs it, so the pid perflab holds is the app's own (or, for
    // a command that starts it through a script, its parent: the readiness wait then finds the .NET process below it).
    private ProcessSpec Spec(Uri address, string logFile)
    {
        var url = address.ToString().TrimEnd('/');
        var pin = launch.CpuSet is { } cpus ? $"taskset -c {cpus} " : "";
        var configArguments = launch.ConfigurationVia == ConfigurationVia.Arguments
            ? launch.Configuration.Select(p => $"--{p.Key}={p.Value}").ToList()
            : [];
        var urlArguments = launch.Binding == AppBinding.Urls ? new[] { "--urls", url } : [];
        var command = launch.Source.Kind == AppSourceKind.Command
            ? launch.Source.Path.Replace(AppLaunch.PortPlaceholder,
                address.Port.ToString(System.Globalization.CultureInfo.InvariantCulture), StringComparison.Ordinal)
            : $"{Quote(ProcessRunner.DotnetHost)} {Quote(_dll!)}";
        var script = $"exec {pin}{command} {string.Join(' ', urlArguments.Concat(configArguments).Select(Quote))} "
            + $"</dev/null >\"${LogVariable}\" 2>&1";

        var environment = new Dictionary<string, string>
        {
            [LogVariable] = logFile,
            ["DOTNET_CLI_TELEMETRY_OPTOUT"] = "1",
        };
        if (launch.Binding == AppBinding.Environment)
        {
            environment["ASPNETCORE_URLS"] = url;
        }
        if (launch.ConfigurationVia == ConfigurationVia.Environment)
        {
            foreach (var (key, value) in launch.Configuration)
            {
                environment[EffectCheck.EnvironmentName(key)] = value;
            }
        }
        foreach (var (key, value) in launch.Environment)
        {
            environment[key] = value;
        }
        var folder = launch.Source.Kind == AppSourceKind.Command ? launch.WorkingDirectory : Path.GetDirectoryName(_dll)!;
        return new ProcessSpec("/bin/sh", ["-c", script]) { Environment = environment, WorkingDirectory = folder };
    }

    private static string Quote(string text) => "'" + text.Replace("'", "'\\''", StringComparison.Ordinal) + "'";
}
