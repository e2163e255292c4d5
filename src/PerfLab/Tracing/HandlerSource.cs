using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Reflection.PortableExecutable;

namespace PerfLab.Tracing;

/// <summary>
/// The handler a minimal-API route maps to, read from the app's own assembly: where the JIT inlined a small handler
/// into ASP.NET Core's compiled endpoint delegate, no frame of the trace names it, but the code that mapped the route
/// does: <c>app.MapGet("/weatherforecast-sync", lambda)</c> compiles to an <c>ldstr</c> of the route template followed
/// by an <c>ldftn</c> of the handler. The handler's source file and line come from the assembly's portable PDB (beside
/// it or embedded) when there is one. A route mapped through a group's prefix, or by a controller, is not found.
/// </summary>
public static class HandlerSource
{
    private const byte Ldstr = 0x72;
    private const byte Prefix = 0xFE;
    private const byte Ldftn = 0x06;
    // The handler's ldftn follows its route's ldstr within a few instructions (a cached delegate's check and load).
    private const int MaxDistance = 48;

    /// <summary>"DelaysApi.MapDelays lambda b__1_0 (DelaysApi.cs:17)", or null when the route or the file is not found.</summary>
    public static string? Find(string assemblyPath, string requestPath)
    {
        try
        {
            return File.Exists(assemblyPath) ? Read(assemblyPath, requestPath) : null;
        }
        catch (Exception ex) when (ex is BadImageFormatException or IOException or InvalidOperationException)
        {
            return null; // not an assembly this can read: the finding keeps the route
        }
    }

    private static string? Read(string assemblyPath, string requestPath)
    {
        using var pe = new PEReader(File.OpenRead(assemblyPath));
        var md = pe.GetMetadataReader();
        foreach (var handle in md.MethodDefinitions)
        {
            var method = md.GetMethodDefinition(handle);
            if (method.RelativeVirtualAddress == 0)
            {
                continue;
            }
            var il = pe.GetMethodBody(method.RelativeVirtualAddress).GetILBytes();
            if (il is not null && HandlerIn(md, il, requestPath) is { } handler)
            {
                return Describe(pe, md, assemblyPath, handler);
            }
        }
        return null;
    }

    // Scans the bytes for ldstr of a matching template, then the next ldftn of a method of this assembly.
    private static MethodDefinitionHandle? HandlerIn(MetadataReader md, byte[] il, string requestPath)
    {
        for (var i = 0; i + 5 <= il.Length; i++)
        {
            if (il[i] != Ldstr || il[i + 4] != 0x70 || !Matches(md, il, i + 1, requestPath))
            {
                continue;
            }
            for (var j = i + 5; j + 6 <= il.Length && j < i + MaxDistance; j++)
            {
                if (il[j] == Prefix && il[j + 1] == Ldftn && il[j + 5] == 0x06)
                {
                    return MetadataTokens.MethodDefinitionHandle(BitConverter.ToInt32(il, j + 2) & 0xFFFFFF);
                }
            }
        }
        return null;
    }

    private static bool Matches(MetadataReader md, byte[] il, int at, string requestPath)
    {
        var offset = BitConverter.ToInt32(il, at) & 0xFFFFFF;
        if (offset <= 0 || offset >= md.GetHeapSize(HeapIndex.UserString))
        {
            return false;
        }
        var template = md.GetUserString(MetadataTokens.UserStringHandle(offset));
        return template.StartsWith('/') && RouteMatches(template, requestPath);
    }

    /// <summary>A route template against a request path: literal segments equal (any case), a {parameter} any one segment.</summary>
    public static bool RouteMatches(string template, string requestPath)
    {
        var t = template.Trim('/').Split('/');
        var p = requestPath.Split('?')[0].Trim('/').Split('/');
        return t.Length == p.Length
               && t.Zip(p).All(s => s.First.StartsWith('{') || string.Equals(s.First, s.Second, StringComparison.OrdinalIgnoreCase));
    }

    private static string Describe(PEReader pe, MetadataReader md, string assemblyPath, MethodDefinitionHandle handle)
    {
        var method = md.GetMethodDefinition(handle);
        var place = FrameNames.Place(FrameNames.Readable(TypeName(md, method.GetDeclaringType()) + "." + md.GetString(method.Name)));
        return Line(pe, assemblyPath, handle) is { } line ? $"{place} ({line})" : place;
    }

    internal static string TypeName(MetadataReader md, TypeDefinitionHandle handle)
    {
        var type = md.GetTypeDefinition(handle);
        var name = md.GetString(type.Name);
        var outer = type.GetDeclaringType();
        if (!outer.IsNil)
        {
            return TypeName(md, outer) + "+" + name;
        }
        var ns = md.GetString(type.Namespace);
        return ns.Length > 0 ? ns + "." + name : name;
    }

    // The handler's first line with code, from the portable PDB beside the assembly or embedded in it.
    private static string? Line(PEReader pe, string assemblyPath, MethodDefinitionHandle handle)
    {
        if (!pe.TryOpenAssociatedPortablePdb(assemblyPath, p => File.Exists(p) ? File.OpenRead(p) : null, out var provider, out _)
            || provider is null)
        {
            return null;
        }
        using (provider)
        {
            var pdb = provider.GetMetadataReader();
            var points = pdb.GetMethodDebugInformation(handle.ToDebugInformationHandle()).GetSequencePoints();
            foreach (var point in points.Where(p => !p.IsHidden))
            {
                var file = pdb.GetString(pdb.GetDocument(point.Document).Name);
                return $"{Path.GetFileName(file)}:{point.StartLine}";
            }
        }
        return null;
    }
}
