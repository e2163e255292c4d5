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
/// <param name="LeftOut">Folders of the root source that are not copied (perflab's publish/, below).</param>
internal sealed record Bundle(
    string What, IReadOnlyList<(string Folder, string Prefix)> Sources, IReadOnlyList<string> LeftOut, string Hash)
{
    public static Bundle Of(string what, IReadOnlyList<(string Folder, string Prefix)> sources, params string[] leftOut) =>
        new(what, sources, leftOut, Deployment.ContentHash(sources, leftOut));

    /// <summary>Its size in bytes before packing, for the progress line of a copy.</summary>
    public long Bytes => Deployment.Files(Sources, LeftOut).Sum(f => new FileInfo(f.Path).Length);
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
    // `dotnet pack` and `dotnet publish` of perflab without -o write publish/ inside its build folder: never perflab's.
    private static readonly Lazy<Bundle> Perflab = new(() => Bundle.Of("perflab", Sources, "publish"));

    /// <summary>
    /// What is copied: perflab's folder, and beside it in sut/ the built-in SUT's build when perflab runs from a checkout
    /// (a package already holds it there), so that on the host perflab finds it as a package would.
    /// </summary>
    private static IReadOnlyList<(string Folder, string Prefix)> Sources =>
        PerfLabPaths.Packaged
            ? [(AppContext.BaseDirectory, "")]
            : [(AppContext.BaseDirectory, ""), (Path.GetDirectoryName(PerfLabPaths.SutAssembly)!, "sut/")];

    // PERFLAB_HOST_CACHE (set by the host, e.g. sshd's SetEnv) moves the builds elsewhere than the user's cache.
    private const string Builds = $"\"${{{RoleLines.CacheVariable}:-$HOME/.cache/perflab}}/builds\"";

    private static string Folder(string hash) => $"{Builds}/{hash}";

    /// <summary>How many builds a host keeps: the newest used (each use touches its .complete), older ones removed.</summary>
    internal const int KeptBuilds = 5;

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

    /// <summary>
    /// <paramref name="bundle"/> on <paramref name="host"/>, copied there first if it lacks it or its copy there does not
    /// hash to its name (altered, or cut); true when it copied.
    /// </summary>
    public static async Task<bool> EnsureAsync(SshClient ssh, HostRef host, Bundle bundle, CancellationToken ct)
    {
        var probe = await ssh.RunAsync(host, ProbeScript(bundle.Hash), TimeSpan.FromSeconds(60), ct).ConfigureAwait(false);
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

    /// <summary>
    /// The content hash of a folder on the host, as <see cref="ContentHash"/> computes it here: SHA-256 of the list of
    /// each file's SHA-256 and path (sha256sum's lines, in byte order of the paths), the marker .complete left out.
    /// </summary>
    private static string HashOf(string folder) =>
        $"$(cd {folder} && find . -type f ! -path ./.complete -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum | sha256sum | cut -c1-16)";

    /// <summary>
    /// "present" when the build is there whole and hashes to its name (then touched: it was used now), else "missing";
    /// a copy that does not hash to its name is moved aside (one rename, so no other host sees it half gone) and removed.
    /// </summary>
    private static string ProbeScript(string hash) =>
        $"d={Folder(hash)}; [ -f \"$d/.complete\" ] || {{ echo missing; exit 0; }}; "
        + $"if [ \"{HashOf("\"$d\"")}\" = {hash} ]; then touch \"$d/.complete\"; echo present; exit 0; fi; "
        + $"b={Builds}/.bad-$$; mv -T \"$d\" \"$b\" 2>/dev/null && rm -rf \"$b\"; echo missing";

    /// <summary>
    /// Unpacks into a temporary folder of its own, checks its hash, and renames it into place: one rename wins when hosts
    /// sharing a home copy at once (the others remove theirs and use the winner's); then keeps the newest
    /// <see cref="KeptBuilds"/> builds and removes temporary folders an hour old (copies cut short).
    /// </summary>
    private static string UnpackScript(string hash) =>
        // The builds folder is the user's alone (0700): nobody else reads or swaps what a role runs.
        $"set -e; c={Builds}; d=\"$c/{hash}\"; mkdir -p \"$c\"; chmod 700 \"$c\"; t=$(mktemp -d \"$c/.tmp-{hash}-XXXXXX\"); "
        // -m: each file and the folder itself get the time of unpacking, not the build's; a build over an hour old once
        // made this copy's folder look an hour old to the sweep below on another host sharing the home, which removed it.
        + "tar -xzmf - -C \"$t\"; "
        + $"h=\"{HashOf("\"$t\"")}\"; "
        + $"if [ \"$h\" != {hash} ]; then rm -rf \"$t\"; echo \"the copy there hashes to $h, not {hash}\" >&2; exit 3; fi; "
        + "touch \"$t/.complete\"; "
        + "if ! mv -T \"$t\" \"$d\" 2>/dev/null; then rm -rf \"$t\"; "
        + "[ -f \"$d/.complete\" ] || { echo \"cannot rename into $d\" >&2; exit 3; }; fi; "
        + $"ls -1t \"$c\"/*/.complete 2>/dev/null | tail -n +{KeptBuilds + 1} | "
        + "while IFS= read -r f; do rm -rf \"${f%/.complete}\"; done; "
        + "find \"$c\" -maxdepth 1 -name '.tmp-*' -mmin +60 -exec rm -rf {} +";

    private static async Task CopyAsync(SshClient ssh, HostRef host, Bundle bundle, CancellationToken ct)
    {
        var unpack = UnpackScript(bundle.Hash);
        var tarInfo = new ProcessStartInfo("tar") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        ChildEnvironment.Apply(tarInfo);
        foreach (var argument in TarArguments(bundle))
        {
            tarInfo.ArgumentList.Add(argument);
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
    /// SHA-256 of the list of every file's SHA-256 and path as copied ("./" + prefix + its path in its folder), one
    /// sha256sum line each, in the paths' byte order: the same build gives the same name on every host, and the host
    /// recomputes it with sha256sum before it uses the build (<see cref="HashOf"/>).
    /// </summary>
    internal static string ContentHash(IReadOnlyList<(string Folder, string Prefix)> sources, IReadOnlyList<string> leftOut)
    {
        var manifest = new StringBuilder();
        foreach (var (name, path) in Files(sources, leftOut).OrderBy(f => f.Name, StringComparer.Ordinal))
        {
            using var stream = File.OpenRead(path);
            manifest.Append(Convert.ToHexStringLower(SHA256.HashData(stream))).Append("  ").Append(name).Append('\n');
        }
        return Convert.ToHexStringLower(SHA256.HashData(Encoding.UTF8.GetBytes(manifest.ToString())))[..16];
    }

    /// <summary>Every file copied, by its name on the host ("./" + prefix + its path in its folder) and its path here.</summary>
    internal static IEnumerable<(string Name, string Path)> Files(IReadOnlyList<(string Folder, string Prefix)> sources,
        IReadOnlyList<string> leftOut) =>
        sources.SelectMany(s => Directory.EnumerateFiles(s.Folder, "*", SearchOption.AllDirectories)
                .Select(f => (Name: "./" + s.Prefix + Path.GetRelativePath(s.Folder, f), Path: f)))
            .Where(f => !leftOut.Any(l => f.Name.StartsWith($"./{l}/", StringComparison.Ordinal)));

    /// <summary>tar's arguments that write <paramref name="bundle"/> to its standard output, gzipped.</summary>
    internal static IReadOnlyList<string> TarArguments(Bundle bundle)
    {
        // gzip's fastest level: a third of the default's CPU for a stream 8 % larger (56 MB of perflab's build: 1.2 s
        // against 3.3 s of CPU), packed once for each host; the host's `tar -xzf` reads either.
        var arguments = new List<string> { "--use-compress-program=gzip -1", "-cf", "-" };
        // Anchored: ./publish at the root alone, as Files leaves it out, not a folder of that name deeper down.
        arguments.Add("--anchored");
        arguments.AddRange(bundle.LeftOut.Select(l => $"--exclude=./{l}"));
        foreach (var (folder, prefix) in bundle.Sources)
        {
            if (prefix.Length == 0)
            {
                arguments.AddRange(["-C", folder, "."]);
                continue;
            }
            // GNU tar: the folder goes in by its own name, renamed to the prefix; the first source's members all start with "./".
            var full = Path.GetFullPath(folder).TrimEnd('/');
            var leaf = Path.GetFileName(full);
            arguments.AddRange([$"--transform=s,^{leaf.Replace(".", "\\.", StringComparison.Ordinal)},{prefix.TrimEnd('/')},",
                "-C", Path.GetDirectoryName(full)!, leaf]);
        }
        return arguments;
    }

    private static string Quote(string s) => "'" + s.Replace("'", "'\\''", StringComparison.Ordinal) + "'";
}
