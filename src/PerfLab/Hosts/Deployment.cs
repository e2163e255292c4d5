using System.Diagnostics;
using System.Security.Cryptography;
using System.Text;
using PerfLab.Common;

namespace PerfLab.Hosts;

/// <summary>
/// A folder tree to put on hosts (perflab's build, an app's published build), named by the hash of its content.
/// </summary>
/// <param name="What">The build in words, for messages ("perflab", "the app's build TinyShop.dll").</param>
/// <param name="Sources">Each folder and the prefix its files get on the host ("" for the root).</param>
internal sealed record Bundle(string What, IReadOnlyList<(string Folder, string Prefix)> Sources, string Hash)
{
    public static Bundle Of(string what, IReadOnlyList<(string Folder, string Prefix)> sources) =>
        new(what, sources, Deployment.ContentHash(sources));

    /// <summary>Its size in bytes before packing, for the progress line of a copy.</summary>
    public long Bytes => Sources.Sum(s =>
        Directory.EnumerateFiles(s.Folder, "*", SearchOption.AllDirectories).Sum(f => new FileInfo(f).Length));
}

/// <summary>
/// Puts a build on a host, once: perflab's own (the folder perflab.dll runs from, a framework-dependent build: the host
/// needs the .NET runtime, which <c>hosts check</c> verifies) or an app's published build, copied as a tar stream over
/// ssh into a folder named by the hash of its content, ~/.cache/perflab/builds/HASH ($PERFLAB_HOST_CACHE/builds/HASH
/// where the host sets it). A host that already holds that hash gets nothing; a copy cut short never counts (it lands
/// under .tmp and is renamed when whole). Nothing is installed and nothing listens.
/// </summary>
internal static class Deployment
{
    private static readonly Lazy<Bundle> Perflab = new(() => Bundle.Of("perflab", Sources));

    /// <summary>
    /// What is copied: perflab's folder, and beside it in sut/ the built-in SUT's build when perflab runs from a checkout
    /// (a package already holds it there), so that on the host perflab finds it as a package would.
    /// </summary>
    private static IReadOnlyList<(string Folder, string Prefix)> Sources =>
        PerfLabPaths.Packaged
            ? [(AppContext.BaseDirectory, "")]
            : [(AppContext.BaseDirectory, ""), (Path.GetDirectoryName(PerfLabPaths.SutAssembly)!, "sut/")];

    // PERFLAB_HOST_CACHE (set by the host, e.g. sshd's SetEnv) moves the builds elsewhere than the user's cache.
    private static string Folder(string hash) => $"\"${{{RoleLines.CacheVariable}:-$HOME/.cache/perflab}}/builds/{hash}\"";

    /// <summary>
    /// Where a build of <paramref name="hash"/> lies on this host, for a role running here: the folder
    /// <see cref="Folder"/> names in the shell, by the same rule.
    /// </summary>
    public static string FolderHere(string hash) => Path.Combine(
        Environment.GetEnvironmentVariable(RoleLines.CacheVariable) is { Length: > 0 } own
            ? own
            : Path.Combine(Environment.GetFolderPath(Environment.SpecialFolder.UserProfile), ".cache", "perflab"),
        "builds", hash);

    // The runtime from PATH, else the per-user install dotnet-install.sh makes.
    private const string Dotnet = "\"$(command -v dotnet || echo \"$HOME/.dotnet/dotnet\")\"";

    /// <summary>
    /// The shell command that starts perflab on <paramref name="host"/>, copying the build there first if it lacks it;
    /// true when it copied.
    /// </summary>
    public static async Task<(string Command, bool Copied)> EnsureAsync(SshClient ssh, HostRef host, CancellationToken ct)
    {
        if (host.IsLocal)
        {
            var dll = Quote(Path.Combine(AppContext.BaseDirectory, "perflab.dll"));
            return ($"exec {ChildEnvironment.ShellPrefix}{Quote(ProcessRunner.DotnetHost)} {dll}", false);
        }
        var copied = await EnsureAsync(ssh, host, Perflab.Value, ct).ConfigureAwait(false);
        return ($"exec {ChildEnvironment.ShellPrefix}{Dotnet} {Folder(Perflab.Value.Hash)}/perflab.dll", copied);
    }

    /// <summary><paramref name="bundle"/> on <paramref name="host"/>, copied there first if it lacks it; true when it copied.</summary>
    public static async Task<bool> EnsureAsync(SshClient ssh, HostRef host, Bundle bundle, CancellationToken ct)
    {
        var folder = Folder(bundle.Hash);
        var probe = await ssh.RunAsync(host, $"test -f {folder}/.complete && echo present || echo missing", TimeSpan.FromSeconds(30), ct)
            .ConfigureAwait(false);
        if (probe.ExitCode != 0)
        {
            throw SshClient.Failure(host, probe);
        }
        if (probe.Stdout.Trim() == "present")
        {
            return false;
        }
        await CopyAsync(ssh, host, bundle, ct).ConfigureAwait(false);
        return true;
    }

    private static async Task CopyAsync(SshClient ssh, HostRef host, Bundle bundle, CancellationToken ct)
    {
        // The builds folder is the user's alone (0700): nobody else reads or swaps what a role runs.
        var unpack = $"set -e; d={Folder(bundle.Hash)}; mkdir -p \"${{d%/*}}\"; chmod 700 \"${{d%/*}}\"; "
            + "rm -rf \"$d.tmp\"; mkdir -p \"$d.tmp\"; tar -xzf - -C \"$d.tmp\"; "
            + "touch \"$d.tmp/.complete\"; "
            + $"rm -rf \"$d\"; mv \"$d.tmp\" \"$d\"";
        var tarInfo = new ProcessStartInfo("tar") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        ChildEnvironment.Apply(tarInfo);
        tarInfo.ArgumentList.Add("-czf");
        tarInfo.ArgumentList.Add("-");
        foreach (var (folder, prefix) in bundle.Sources)
        {
            if (prefix.Length == 0)
            {
                tarInfo.ArgumentList.Add("-C");
                tarInfo.ArgumentList.Add(folder);
                tarInfo.ArgumentList.Add(".");
                continue;
            }
            // GNU tar: the folder goes in by its own name, renamed to the prefix; the first source's members all start with "./".
            var full = Path.GetFullPath(folder).TrimEnd('/');
            var leaf = Path.GetFileName(full);
            tarInfo.ArgumentList.Add($"--transform=s,^{leaf.Replace(".", "\\.", StringComparison.Ordinal)},{prefix.TrimEnd('/')},");
            tarInfo.ArgumentList.Add("-C");
            tarInfo.ArgumentList.Add(Path.GetDirectoryName(full)!);
            tarInfo.ArgumentList.Add(leaf);
        }
        using var tar = Process.Start(tarInfo)
            ?? throw new PerfLabException($"cannot start tar to pack {bundle.What} for the hosts.", ExitCode.Environment);
        using var remote = Process.Start(ssh.StartInfo(host, unpack))
            ?? throw new PerfLabException("cannot start ssh.", ExitCode.Environment);
        var stderr = remote.StandardError.ReadToEndAsync(ct);
        var stdout = remote.StandardOutput.ReadToEndAsync(ct);
        try
        {
            await tar.StandardOutput.BaseStream.CopyToAsync(remote.StandardInput.BaseStream, ct).ConfigureAwait(false);
        }
        catch (IOException)
        {
            // ssh went away mid-copy: its exit code and message below say why.
        }
        remote.StandardInput.Close();
        await Task.WhenAll(tar.WaitForExitAsync(ct), remote.WaitForExitAsync(ct)).ConfigureAwait(false);
        await stdout.ConfigureAwait(false);
        if (remote.ExitCode != 0)
        {
            var output = new HostOutput(remote.ExitCode, "", await stderr.ConfigureAwait(false));
            throw remote.ExitCode == SshClient.ConnectionFailed
                ? SshClient.Failure(host, output)
                : new PerfLabException($"{host}: copying {bundle.What} there failed: {output.Stderr}", ExitCode.Environment);
        }
    }

    /// <summary>
    /// SHA-256 of every file's path (as copied) and bytes, in path order: the same build gives the same name on every
    /// host.
    /// </summary>
    internal static string ContentHash(IReadOnlyList<(string Folder, string Prefix)> sources)
    {
        using var sha = IncrementalHash.CreateHash(HashAlgorithmName.SHA256);
        foreach (var (folder, prefix) in sources)
        {
            foreach (var file in Directory.EnumerateFiles(folder, "*", SearchOption.AllDirectories).Order(StringComparer.Ordinal))
            {
                sha.AppendData(Encoding.UTF8.GetBytes(prefix + Path.GetRelativePath(folder, file) + "\0"));
                sha.AppendData(File.ReadAllBytes(file));
            }
        }
        return Convert.ToHexStringLower(sha.GetHashAndReset())[..16];
    }

    private static string Quote(string s) => "'" + s.Replace("'", "'\\''", StringComparison.Ordinal) + "'";
}
