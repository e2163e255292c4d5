using System.Security.Cryptography;
using System.Text;
using PerfLab.Common;

namespace PerfLab.Apps;

/// <summary>A published app: the DLL to run, the cache key it was stored under, and whether this call built it.</summary>
public sealed record AppBuild(string Dll, string Key, bool Built);

/// <summary>
/// Publishes a user's project in Release into perflab's cache (apps/), once per content: a working tree is keyed by a
/// hash of its files, a git ref by its commit (built in a git worktree of its own, removed afterwards), so a second
/// run, or a second variant on the same commit, starts at once. Intermediate files go to the cache too
/// (<c>--artifacts-path</c>): nothing is written into the user's folder.
/// </summary>
public static class AppBuilds
{
    private static readonly TimeSpan BuildTimeout = TimeSpan.FromMinutes(15);
    private const string DoneMarker = ".perflab-published";

    public static string DefaultCacheFolder => Path.Combine(PerfLabPaths.CacheRoot, "apps");

    /// <param name="cacheFolder">Where builds are kept (default: apps/ in perflab's cache).</param>
    public static async Task<AppBuild> PublishAsync(string projectPath, string? gitRef, IProgress<string>? progress, CancellationToken ct,
        string? cacheFolder = null)
    {
        var cache = cacheFolder ?? DefaultCacheFolder;
        var project = ProjectFile(projectPath);
        var name = Path.GetFileNameWithoutExtension(project);
        if (gitRef is null)
        {
            var key = "tree-" + ContentHash(Path.GetDirectoryName(project)!);
            return await PublishOnceAsync(cache, project, name, key, $"{name} (working tree)", progress, ct);
        }
        var source = await GitSource.ResolveAsync(project, gitRef, ct);
        var what = $"{name} at {gitRef} ({source.Commit[..12]})";
        if (Cached(cache, name, source.Key) is { } cached)
        {
            progress?.Report($"using the cached build of {what}");
            return cached;
        }
        await using var worktree = await GitWorktree.AddAsync(source, Path.Combine(cache, "worktrees"), ct);
        return await PublishOnceAsync(cache, Path.Combine(worktree.Folder, source.RelativeProject), name, source.Key, what, progress, ct);
    }

    /// <summary>The .csproj a path names: the file itself, or the one project file in the folder.</summary>
    public static string ProjectFile(string path)
    {
        if (File.Exists(path) && path.EndsWith("proj", StringComparison.OrdinalIgnoreCase))
        {
            return Path.GetFullPath(path);
        }
        if (!Directory.Exists(path))
        {
            throw new PerfLabException($"the app's project {path} does not exist: give a folder with one .csproj, or the .csproj itself.",
                ExitCode.Usage);
        }
        var projects = Directory.GetFiles(path, "*.csproj").Concat(Directory.GetFiles(path, "*.fsproj")).Order(StringComparer.Ordinal)
            .ToList();
        return projects.Count == 1
            ? Path.GetFullPath(projects[0])
            : throw new PerfLabException(projects.Count == 0
                ? $"no .csproj in {path}: give the folder of the app's project, or the project file itself."
                : $"{path} holds {projects.Count} project files ({string.Join(", ", projects.Select(p => Path.GetFileName(p)))}): name one "
                    + "of them.",
                ExitCode.Usage);
    }

    private static AppBuild? Cached(string cache, string name, string key)
    {
        var output = Path.Combine(cache, $"{name}-{key}");
        return File.Exists(Path.Combine(output, DoneMarker)) ? new AppBuild(FindDll(output, name), key, Built: false) : null;
    }

    private static async Task<AppBuild> PublishOnceAsync(string cache, string project, string name, string key, string what,
        IProgress<string>? progress, CancellationToken ct)
    {
        if (Cached(cache, name, key) is { } cached)
        {
            progress?.Report($"using the cached build of {what}");
            return cached;
        }
        var output = Path.Combine(cache, $"{name}-{key}");
        var partial = output + ".partial";
        if (Directory.Exists(partial))
        {
            Directory.Delete(partial, recursive: true);
        }
        progress?.Report($"publishing {what} in Release (first use only)...");
        var artifacts = Path.Combine(cache, "artifacts", $"{name}-{key}");
        await RunPublishAsync(project, partial, artifacts, what, ct);
        // The intermediate files serve no later build: another content or commit gets another key.
        if (Directory.Exists(artifacts))
        {
            Directory.Delete(artifacts, recursive: true);
        }
        await File.WriteAllTextAsync(Path.Combine(partial, DoneMarker), project, ct);
        if (Directory.Exists(output))
        {
            Directory.Delete(output, recursive: true);
        }
        Directory.Move(partial, output);
        return new AppBuild(FindDll(output, name), key, Built: true);
    }

    private static async Task RunPublishAsync(string project, string output, string artifacts, string what, CancellationToken ct)
    {
        string[] arguments =
        [
            "publish", project, "-c", "Release", "-o", output, "--artifacts-path", artifacts, "-nologo",
            // No build server or compiler server left running after perflab exits.
            "-nodeReuse:false", "-p:UseSharedCompilation=false",
        ];
        var log = new List<string>();
        var exitCode = await ProcessRunner.RunAsync(new ProcessSpec(ProcessRunner.DotnetHost, arguments)
        {
            Timeout = BuildTimeout,
            Environment = new Dictionary<string, string> { ["DOTNET_CLI_TELEMETRY_OPTOUT"] = "1", ["DOTNET_NOLOGO"] = "1" },
            OnOutputLine = l => { lock (log) { log.Add(l); } },
            OnErrorLine = l => { lock (log) { log.Add(l); } },
        }, ct);
        if (exitCode != 0)
        {
            var errors = log.Where(l => l.Contains("error", StringComparison.OrdinalIgnoreCase)).Select(l => l.Trim()).Distinct().Take(8)
                .ToList();
            throw new PerfLabException(
                $"publishing {what} failed (dotnet publish exit code {exitCode}):{Environment.NewLine}  " +
                string.Join(Environment.NewLine + "  ", errors.Count > 0 ? errors : log.TakeLast(8)), ExitCode.Failed);
        }
    }

    /// <summary>The app's entry DLL in a publish folder: the one with a runtimeconfig.json, preferring the project's name.</summary>
    public static string FindDll(string folder, string name)
    {
        var preferred = Path.Combine(folder, name + ".dll");
        if (File.Exists(Path.Combine(folder, name + ".runtimeconfig.json")) && File.Exists(preferred))
        {
            return preferred;
        }
        var apps = Directory.GetFiles(folder, "*.runtimeconfig.json")
            .Select(f => f[..^".runtimeconfig.json".Length] + ".dll").Where(File.Exists).ToList();
        return apps.Count == 1
            ? apps[0]
            : throw new PerfLabException($"cannot tell the app's DLL in {folder} ({apps.Count} runnable DLLs); is the project "
                + "an executable?", ExitCode.Usage);
    }

    /// <summary>A hash of a project folder's files (bin, obj and dot-folders left out) and of the build files above it.</summary>
    public static string ContentHash(string folder)
    {
        static bool Skipped(string relative) => relative.Split(Path.DirectorySeparatorChar)
            .Any(part => part is "bin" or "obj" || part.StartsWith('.'));
        var files = Directory.EnumerateFiles(folder, "*", SearchOption.AllDirectories)
            .Where(f => !Skipped(Path.GetRelativePath(folder, f)))
            .Concat(BuildFilesAbove(folder))
            .Order(StringComparer.Ordinal);
        using var sha = IncrementalHash.CreateHash(HashAlgorithmName.SHA256);
        foreach (var file in files)
        {
            sha.AppendData(Encoding.UTF8.GetBytes(Path.GetRelativePath(folder, file)));
            sha.AppendData(File.ReadAllBytes(file));
        }
        return Convert.ToHexString(sha.GetHashAndReset())[..12].ToLowerInvariant();
    }

    private static IEnumerable<string> BuildFilesAbove(string folder)
    {
        for (var dir = Directory.GetParent(folder); dir is not null; dir = dir.Parent)
        {
            foreach (var name in new[] { "Directory.Build.props", "Directory.Build.targets", "Directory.Packages.props", "global.json",
                "nuget.config" })
            {
                var file = Path.Combine(dir.FullName, name);
                if (File.Exists(file))
                {
                    yield return file;
                }
            }
        }
    }
}
