using System.Globalization;

namespace PerfLab.Common;

/// <summary>One TCP socket of the kernel's table (/proc/net/tcp, tcp6): its local and remote ports and its inode.</summary>
public readonly record struct TcpSocket(int LocalPort, int RemotePort, long Inode);

/// <summary>
/// Which TCP sockets a process holds, from /proc: its descriptors name socket inodes ("socket:[123]"), the network
/// namespace's tables give each inode's ports. That is how two processes on one machine are found to be the two ends
/// of a connection (an app and the PostgreSQL backend serving it), whatever the app is.
/// </summary>
public static class TcpSockets
{
    /// <summary>The TCP sockets of <paramref name="pid"/>'s network namespace (IPv4 and IPv6); empty when unreadable.</summary>
    public static IReadOnlyList<TcpSocket> Table(int pid) =>
        [.. Parse(ReadOrEmpty(Proc(pid, "net/tcp"))), .. Parse(ReadOrEmpty(Proc(pid, "net/tcp6")))];

    /// <summary>The socket inodes <paramref name="pid"/> holds open; empty when the process is gone or not ours to read.</summary>
    public static IReadOnlySet<long> InodesOf(int pid)
    {
        var inodes = new HashSet<long>();
        try
        {
            foreach (var fd in Directory.EnumerateFileSystemEntries(Proc(pid, "fd")))
            {
                var target = ReadLink(fd);
                if (target is not null && target.StartsWith("socket:[", StringComparison.Ordinal)
                    && long.TryParse(target.AsSpan(8, target.Length - 9), CultureInfo.InvariantCulture, out var inode))
                {
                    inodes.Add(inode);
                }
            }
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
        }
        return inodes;
    }

    /// <summary>The sockets of a /proc/net/tcp text: "sl local rem st tx:rx tr:when retrnsmt uid timeout inode ...".</summary>
    public static IEnumerable<TcpSocket> Parse(string table)
    {
        foreach (var line in table.Split('\n').Skip(1))
        {
            var fields = line.Split(' ', StringSplitOptions.RemoveEmptyEntries);
            if (fields.Length > 9 && Port(fields[1]) is { } local && Port(fields[2]) is { } remote
                && long.TryParse(fields[9], CultureInfo.InvariantCulture, out var inode))
            {
                yield return new TcpSocket(local, remote, inode);
            }
        }
    }

    private static int? Port(string address)
    {
        var colon = address.LastIndexOf(':');
        return colon > 0 && int.TryParse(address.AsSpan(colon + 1), NumberStyles.HexNumber, CultureInfo.InvariantCulture, out var port)
            ? port
            : null;
    }

    private static string? ReadLink(string path)
    {
        try
        {
            return new FileInfo(path).LinkTarget;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return null;
        }
    }

    private static string ReadOrEmpty(string path)
    {
        try
        {
            return File.ReadAllText(path);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return "";
        }
    }

    private static string Proc(int pid, string leaf) => string.Create(CultureInfo.InvariantCulture, $"/proc/{pid}/{leaf}");
}
