using System.Globalization;
using PerfLab.Apps;
using PerfLab.Common;

namespace PerfLab.Hosts;

/// <summary>
/// A user's app on the app's host: its project published here in Release (a git ref built in a worktree here first),
/// or its built DLL, then the build's folder put on the host by <see cref="Deployment"/> exactly as perflab's own is
/// (content-addressed, once: a host that holds the hash gets nothing), and each process started there by the app role
/// (<see cref="RemoteApp"/>) with the variant's launch. A command line cannot be copied: it is refused.
/// </summary>
internal sealed class RemoteOwnApp(OnHost host, AppLaunch launch, IProgress<string>? say) : IAppUnderTest
{
    private RemoteApp? _app;

    /// <summary>Why a command cannot run on the app's host: what to give instead.</summary>
    public static string CommandRefused(string what) =>
        $"{what} starts its app with a command line (--command, or app: command:), which cannot be copied to the app host of "
        + "--hosts: give the app's project folder, .csproj or built .dll instead (perflab publishes and copies it), or drop --hosts.";

    public async Task PrepareAsync(IProgress<string>? progress, CancellationToken ct)
    {
        var dll = await ExternalApp.BuildAsync(launch.Source, progress, ct)
            ?? throw new PerfLabException(CommandRefused("the experiment"), ExitCode.Usage);
        var name = Path.GetFileName(dll);
        var needs = FrameworkNeed.Of(dll);
        host.Require(needs, name);
        var bundle = Bundle.Of($"the app's build ({name})", [(Path.GetDirectoryName(dll)!, "")]);
        var copied = await Deployment.EnsureAsync(host.Ssh, host.Host, bundle, ct);
        (say ?? progress)?.Report(copied
            ? string.Create(CultureInfo.InvariantCulture, $"{host.Host}: {name}'s build {bundle.Hash} copied ({bundle.Bytes / 1e6:0.0} MB)")
            : $"{host.Host}: {name}'s build {bundle.Hash} already there");
        var order = new OwnAppOrder(launch with { CpuSet = null }, bundle.Hash, name);
        _app = new RemoteApp(host, _ => order, say, needs, name);
    }

    public async Task<IRunningApp> StartAsync(string logFile, IProgress<string>? progress, CancellationToken ct)
    {
        if (_app is null)
        {
            await PrepareAsync(progress, ct);
        }
        return await _app!.StartAsync(logFile, progress, ct);
    }
}
