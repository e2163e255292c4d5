using PerfLab.Apps;

namespace PerfLab.Experiments.Definitions;

/// <summary>
/// The experiment file's <c>app:</c> section: the user's app to measure instead of the built-in SUT (absent: the
/// built-in SUT). Paths are resolved against the experiment file's folder when the file is read.
/// </summary>
public sealed record AppDefinition
{
    public required AppSourceKind Kind { get; init; }
    /// <summary>Project: folder or .csproj; Dll: the file; Command: the command line ({port} where the port goes).</summary>
    public required string Path { get; init; }
    public required AppBinding Binding { get; init; }
    /// <summary>A path that answers 2xx once the app is ready (default /).</summary>
    public string ReadyPath { get; init; } = "/";
    public TimeSpan ReadyTimeout { get; init; } = AppLaunch.DefaultReadyTimeout;
    public ConfigurationVia ConfigurationVia { get; init; } = ConfigurationVia.Arguments;
    /// <summary>Environment every variant gets (a variant's own env wins).</summary>
    public IReadOnlyDictionary<string, string> Env { get; init; } = new Dictionary<string, string>();
    /// <summary>The experiment file's folder: where a command runs, and what relative paths were resolved against.</summary>
    public required string BaseFolder { get; init; }

    /// <summary>The launch of one variant: its project or ref instead of the app's, its configuration and environment.</summary>
    public AppLaunch LaunchFor(VariantDefinition variant, string? cpuSet)
    {
        var source = Kind == AppSourceKind.Project || variant.Project is not null
            ? new AppSource(AppSourceKind.Project, variant.Project ?? Path, variant.Ref)
            : new AppSource(Kind, Path);
        var environment = Env.Concat(variant.Env).GroupBy(p => p.Key).ToDictionary(g => g.Key, g => g.Last().Value);
        // A variant's own project has no command to hold {port}: it is told its address with --urls.
        var binding = source.Kind != AppSourceKind.Command && Binding == AppBinding.Placeholder ? AppBinding.Urls : Binding;
        return new AppLaunch(source, binding, ReadyPath, ReadyTimeout, environment, variant.Config, ConfigurationVia, BaseFolder, cpuSet);
    }
}
