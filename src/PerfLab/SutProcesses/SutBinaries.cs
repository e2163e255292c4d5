using System.Security.Cryptography;
using System.Text;
using PerfLab.Common;

namespace PerfLab.SutProcesses;

/// <summary>Finds (or publishes, for the framework variants) the SUT build to start.</summary>
public static class SutBinaries
{
    /// <summary>The command that starts the SUT on the given framework: a file to execute and its leading arguments.</summary>
    public static async Task<(string FileName, IReadOnlyList<string> Arguments)> ResolveAsync(
        string framework, IProgress<string>? progress, CancellationToken ct)
    {
        if (!SutLaunch.KnownFrameworks.Contains(framework))
        {
            throw new PerfLabException(
                $"unknown framework '{framework}'; choose one of {string.Join(", ", SutLaunch.KnownFrameworks)}.", ExitCode.Usage);
        }
        if (framework == SutLaunch.DefaultFramework)
        {
            var dll = PerfLabPaths.SutAssembly;
            if (!File.Exists(dll))
            {
                throw new PerfLabException($"the SUT build is missing ({dll}); run ./perflab again to build it.", ExitCode.Environment);
            }
            return ("dotnet", [dll]);
        }
        var folder = Path.Combine(PerfLabPaths.CacheRoot, "sut", $"{framework}-{SourceHash()}");
        var executable = Path.Combine(folder, "PerfLab.Sut");
        if (!File.Exists(executable))
        {
            await PublishAsync(framework, folder, progress, ct);
        }
        return (executable, []);
    }

    private static async Task PublishAsync(string framework, string folder, IProgress<string>? progress, CancellationToken ct)
    {
        var project = Path.Combine(PerfLabPaths.RepoRoot, "src", "PerfLab.Sut", "PerfLab.Sut.csproj");
        var scratch = Path.Combine(PerfLabPaths.CacheRoot, "sut", "build", framework);
        progress?.Report($"publishing the SUT for {framework} (self-contained, first use only)...");
        string[] arguments =
        [
            "publish", project, "-c", "Release", "-f", framework, "-r", "linux-x64", "--self-contained", "-nologo",
            "-p:PerfLabAllFrameworks=true", $"-p:BaseIntermediateOutputPath={scratch}/obj/", $"-p:BaseOutputPath={scratch}/bin/",
            "-o", folder + ".partial",
        ];
        Directory.CreateDirectory(scratch);
        var log = new List<string>();
        var exitCode = await ProcessRunner.RunAsync(
            new ProcessSpec("dotnet", arguments) { OnOutputLine = log.Add, OnErrorLine = log.Add }, ct);
        if (exitCode != 0)
        {
            var reasons = log.Where(l => l.Contains("error", StringComparison.OrdinalIgnoreCase))
                .Select(l => l.Trim()).Distinct().Take(5);
            throw new PerfLabException(
                $"the {framework} variant is unavailable here: publishing the SUT for it failed " +
                $"(missing targeting or runtime packs in the package source?):{Environment.NewLine}  " +
                string.Join(Environment.NewLine + "  ", reasons), ExitCode.Environment);
        }
        if (Directory.Exists(folder))
        {
            Directory.Delete(folder, recursive: true);
        }
        Directory.Move(folder + ".partial", folder);
    }

    /// <summary>A hash of the SUT's sources, so a published build is reused until they change.</summary>
    private static string SourceHash()
    {
        var root = PerfLabPaths.RepoRoot;
        var files = Directory.EnumerateFiles(Path.Combine(root, "src", "PerfLab.Sut"), "*", SearchOption.AllDirectories)
            .Where(f => !f.Contains($"{Path.DirectorySeparatorChar}bin{Path.DirectorySeparatorChar}", StringComparison.Ordinal)
                && !f.Contains($"{Path.DirectorySeparatorChar}obj{Path.DirectorySeparatorChar}", StringComparison.Ordinal))
            .Append(Path.Combine(root, "Directory.Build.props"))
            .Append(Path.Combine(root, "Directory.Packages.props"))
            .Where(File.Exists)
            .Order(StringComparer.Ordinal);
        using var sha = IncrementalHash.CreateHash(HashAlgorithmName.SHA256);
        foreach (var file in files)
        {
            sha.AppendData(Encoding.UTF8.GetBytes(Path.GetRelativePath(root, file)));
            sha.AppendData(File.ReadAllBytes(file));
        }
        return Convert.ToHexString(sha.GetHashAndReset())[..12].ToLowerInvariant();
    }
}
