//! What loading a source gives: a [`Project`] of behaviors with the files around them, and
//! those files laid out on disk as on a robot for box code that needs paths.
//!
//! A [`Project`] keeps its folder on disk (`root`), what it came in (`container`, an archive's
//! `control` text, `pml_path`), and goes to the `project` module as [`Project::packed`] and
//! [`Project::readable`] (a readable folder loads as its project). [`Project::on_disk`] lays its
//! files out as on a robot (`PackageManager/apps/<package>`) in a temporary folder for a run: a
//! link to the project's folder, or an archive unpacked.

use std::fs;
use std::path::{Path, PathBuf};

use super::disk::io_error;
use super::reads::{Reads, read};
use super::tree::parent_of;
use crate::FileTree;
use crate::archive::Limits;
use crate::error::{Diagnostic, Error, ErrorKind, Result};
use crate::model::XarFile;
use crate::project::{self, Container, Packed};
use crate::project_files::{Manifest, Pml};

/// The file a lone behavior is kept in (a 1.x project's `behavior.xar`).
const LONE_XAR: &str = "behavior.xar";

/// One behavior of a [`Project`].
#[derive(Debug, Clone, PartialEq)]
pub struct Behavior {
    /// Its display name: the behavior folder (`behavior_1`), the percent-decoded box folder
    /// of a library (`Speech Reco.`), or the project name for a lone behavior.
    pub name: String,
    /// Its file in [`Project::files`] (`behavior_1/behavior.xar`).
    pub path: String,
    /// The behavior itself.
    pub xar: XarFile,
}

/// Everything loaded from a source: the behaviors and the project files around them.
#[derive(Debug, Clone, PartialEq)]
pub struct Project {
    /// The project name: `.pml` name, archive title, manifest name, or the source's name.
    pub name: String,
    /// The behaviors, in project order (library boxes in path order).
    pub behaviors: Vec<Behavior>,
    /// The project file, if the source has one.
    pub pml: Option<Pml>,
    /// Where that project file is in [`Project::files`].
    pub pml_path: Option<String>,
    /// The package manifest, if the source has one.
    pub manifest: Option<Manifest>,
    /// Every file of the source (resources included), by path.
    pub files: FileTree,
    /// Problems found while loading. A behavior that could not be read is left out of
    /// [`Project::behaviors`] and its error is here, with severity [`Severity::Error`](crate::Severity::Error).
    pub warnings: Vec<Diagnostic>,
    /// The folder on disk that [`Project::files`]' paths are relative to (canonical), when
    /// the project was loaded from disk by [`load_path`](super::load_path) other than from an archive: the
    /// folder itself, the folder of a `.pml` or `manifest.xml`, or the folder of a lone
    /// `.xar`. `None` for an archive or bytes loaded in memory (see [`Project::on_disk`]).
    pub root: Option<PathBuf>,
    /// What the project came in (for a readable project folder, what it was made from).
    pub container: Container,
    /// A `.crg`/`.cbl`'s control text (`Type: ChoregrapheProject`...), if it had one.
    pub control: Option<String>,
}

impl Project {
    pub(super) fn new(name: &str, files: FileTree) -> Project {
        Project {
            name: name.to_string(),
            behaviors: Vec::new(),
            pml: None,
            pml_path: None,
            manifest: None,
            files,
            warnings: Vec::new(),
            root: None,
            container: Container::Folder,
            control: None,
        }
    }

    /// The project as Choregraphe keeps it (see [`project::Packed`]): a behavior read from a
    /// split folder is one `behavior.xar`.
    pub fn packed(&self) -> Packed {
        let files = match self.behaviors.as_slice() {
            [only] if only.path == crate::split::MARKER_FILE => FileTree::from([(
                LONE_XAR.to_string(),
                crate::write_xar(&only.xar).into_bytes(),
            )]),
            _ => self.files.clone(),
        };
        Packed {
            container: self.container,
            control: self.control.clone(),
            files,
            name: Some(self.name.clone()),
            pml: self.pml_path.clone(),
        }
    }

    /// The project's readable folder (see [`project::to_readable`]); `shown` names it in
    /// errors.
    pub fn readable(&self, shown: &str) -> Result<FileTree> {
        let behaviors = self.behaviors.iter().map(|b| {
            let path = if b.path == crate::split::MARKER_FILE {
                LONE_XAR
            } else {
                b.path.as_str()
            };
            (path, &b.xar)
        });
        project::to_readable(shown, &self.packed(), behaviors)
    }

    /// The folder of `behavior` inside the project (`behavior_1` for
    /// `behavior_1/behavior.xar`; empty for a behavior at the top).
    pub fn behavior_folder(behavior: &Behavior) -> &str {
        parent_of(&behavior.path)
    }

    /// The project's files as real files laid out as on a robot, played from Choregraphe:
    /// [`Project::on_disk_as`] with [`Install::Played`].
    pub fn on_disk(&self) -> Result<FilesOnDisk> {
        self.on_disk_as(Install::Played)
    }

    /// The project's files as real files laid out as on a robot, for code that needs paths
    /// (box scripts open sounds and data files by `behaviorAbsolutePath()` or by the robot's
    /// own paths, and the stock tablet boxes cut that path at `PackageManager/apps` to build
    /// the tablet's URL): a new temporary folder, the run's root, holding the robot's
    /// folders ([`choreo_robot::paths::FOLDERS`]) with the package in
    /// `home/nao/.local/share/PackageManager/apps/<package>`. `<package>` is
    /// `.lastUploadedChoregrapheBehavior` for a project played from Choregraphe (and its
    /// uuid's folder links there, so it answers to both), else the manifest's uuid (else
    /// the project's name). A project loaded from a folder on disk ([`Project::root`]) is
    /// reached there through a symbolic link to that folder (its files are read and written
    /// in place); an archive's files (or bytes') are written there, and so are a folder's
    /// where no link can be made (wine; a file system without links). The temporary folder
    /// is removed when the returned value is dropped. Where it cannot be made, the
    /// project's own folder is used ([`FilesOnDisk::Folder`]).
    ///
    /// The files written are those the archive reader already bounded
    /// ([`archive::MAX_TOTAL_SIZE`](crate::archive::MAX_TOTAL_SIZE), [`archive::MAX_ENTRIES`](crate::archive::MAX_ENTRIES)); the same caps are checked
    /// again here, and a path that is absolute or climbs out of the folder is refused.
    pub fn on_disk_as(&self, install: Install) -> Result<FilesOnDisk> {
        let installed = self.package_folder_name();
        let package = match install {
            Install::Played => choreo_robot::paths::PLAYED.to_string(),
            Install::Package => installed.clone(),
        };
        let temp = || {
            let dir = tempfile::Builder::new()
                .prefix("choreo-")
                .tempdir()
                .map_err(|e| io_error(&std::env::temp_dir(), &e))?;
            for folder in choreo_robot::paths::FOLDERS {
                let path = dir.path().join(folder.local);
                fs::create_dir_all(&path).map_err(|e| io_error(&path, &e))?;
            }
            let apps = dir.path().join(choreo_robot::paths::APPS);
            fs::create_dir_all(&apps).map_err(|e| io_error(&apps, &e))?;
            // Played, the package also answers to its uuid: a relative link, so that it
            // names the same folder through the robot's paths too.
            if package != installed {
                let _ = symlink_dir(Path::new(&package), &apps.join(&installed));
            }
            Ok::<_, Error>((dir, apps))
        };
        if let Some(root) = &self.root {
            let Ok((dir, apps)) = temp() else {
                return Ok(FilesOnDisk::Folder(root.clone()));
            };
            let path = apps.join(&package);
            if symlink_dir(root, &path).is_ok() {
                return Ok(FilesOnDisk::Installed { dir, path });
            }
            // No link (wine, a file system without them): the files read are written there,
            // as Choregraphe's Play uploads a copy to the robot.
            return self.write_into(dir, path);
        }
        let (dir, apps) = temp()?;
        self.write_into(dir, apps.join(&package))
    }

    /// Writes the project's files into `top`, the package's folder in the run's folder `dir`.
    fn write_into(&self, dir: tempfile::TempDir, top: PathBuf) -> Result<FilesOnDisk> {
        let limits = Limits::default();
        let total = self
            .files
            .values()
            .fold(0u64, |t, b| t.saturating_add(b.len() as u64));
        let name = format!("{} (unpacked)", self.name);
        if total > limits.max_total_size || self.files.len() > limits.max_entries {
            return Err(Error::file_level(
                ErrorKind::TooLarge,
                &name,
                format!(
                    "more than {} bytes or {} files to unpack",
                    limits.max_total_size, limits.max_entries
                ),
            ));
        }
        fs::create_dir_all(&top).map_err(|e| io_error(&top, &e))?;
        for (path, bytes) in &self.files {
            let relative = Path::new(path);
            if !relative
                .components()
                .all(|c| matches!(c, std::path::Component::Normal(_)))
            {
                return Err(Error::file_level(
                    ErrorKind::Unsupported,
                    &name,
                    format!("{path:?}: not a path inside the project"),
                ));
            }
            let target = top.join(relative);
            if let Some(parent) = target.parent() {
                fs::create_dir_all(parent).map_err(|e| io_error(parent, &e))?;
            }
            fs::write(&target, bytes).map_err(|e| io_error(&target, &e))?;
        }
        Ok(FilesOnDisk::Installed { dir, path: top })
    }

    /// The folder PackageManager would install the project in: the manifest's uuid, else
    /// the project's name, when either is one plain folder name; else `package`.
    fn package_folder_name(&self) -> String {
        let plain =
            |s: &str| !s.is_empty() && s != "." && s != ".." && !s.contains(['/', '\\', '\0']);
        self.manifest
            .as_ref()
            .and_then(|m| m.uuid.clone())
            .filter(|u| plain(u))
            .or_else(|| Some(self.name.clone()).filter(|n| plain(n)))
            .unwrap_or_else(|| "package".to_string())
    }

    /// Reads the XAR file at `path` of [`Project::files`] as behavior `name`; a read error
    /// becomes an error diagnostic (the rest of the project still loads).
    pub(super) fn add_behavior(
        &mut self,
        prefix: &str,
        name: String,
        path: String,
        reads: Option<&Reads>,
    ) {
        let Some(bytes) = self.files.get(&path) else {
            return;
        };
        match read(reads, &format!("{prefix}{path}"), bytes) {
            Ok(parsed) => {
                self.warnings.extend(parsed.warnings);
                self.behaviors.push(Behavior {
                    name,
                    path,
                    xar: parsed.value,
                });
            }
            Err(e) => self.warnings.push(*e.0),
        }
    }
}

/// How the project is on the robot (see [`Project::on_disk_as`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Install {
    /// Uploaded and run by Choregraphe's Play: the package `.lastUploadedChoregrapheBehavior`.
    #[default]
    Played,
    /// Installed as a package: the folder named after its uuid.
    Package,
}

/// A project's files on disk (see [`Project::on_disk`]).
#[derive(Debug)]
pub enum FilesOnDisk {
    /// The folder the project was loaded from (when no robot layout could be made).
    Folder(PathBuf),
    /// The robot's layout in a temporary folder (removed on drop): `path` is
    /// `dir/home/nao/.local/share/PackageManager/apps/<package>`, a link to the project's
    /// folder or the folder an archive's files were written to.
    Installed {
        /// The temporary folder.
        dir: tempfile::TempDir,
        /// The package's folder in it.
        path: PathBuf,
    },
}

impl FilesOnDisk {
    /// The folder that holds the project's files.
    pub fn path(&self) -> &Path {
        match self {
            FilesOnDisk::Folder(p) => p,
            FilesOnDisk::Installed { path, .. } => path,
        }
    }

    /// The run's root: the folder the robot's own paths name places in (`/home/nao/x` is
    /// `<root>/home/nao/x`), when the robot's layout was made.
    pub fn robot_root(&self) -> Option<&Path> {
        match self {
            FilesOnDisk::Folder(_) => None,
            FilesOnDisk::Installed { dir, .. } => Some(dir.path()),
        }
    }

    /// The folder of `behavior` (what its boxes' `behaviorAbsolutePath()` is): the package's
    /// folder joined with the behavior's, without a trailing `/` for a behavior at the top.
    pub fn behavior_dir(&self, behavior: &Behavior) -> PathBuf {
        match Project::behavior_folder(behavior) {
            "" => self.path().to_path_buf(),
            folder => self.path().join(folder),
        }
    }
}

/// Makes `link` a symbolic link to the folder `target` (relative: to `link`'s folder). On
/// Windows a symbolic link needs an administrator or developer mode: else a junction (a
/// folder's mount point, which needs neither); where neither leads there, an error, and
/// [`Project::on_disk`] writes the project's files there instead.
fn symlink_dir(target: &Path, link: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    return std::os::unix::fs::symlink(target, link);
    #[cfg(windows)]
    {
        // A link said made that does not lead there (wine's symbolic links) is none.
        let leads = || matches!(std::fs::metadata(link), Ok(m) if m.is_dir());
        if std::os::windows::fs::symlink_dir(target, link).is_ok() && leads() {
            return Ok(());
        }
        let _ = std::fs::remove_dir(link);
        let absolute = link
            .parent()
            .map_or(target.to_path_buf(), |p| p.join(target));
        junction::create(&absolute, link)?;
        if leads() {
            return Ok(());
        }
        let _ = std::fs::remove_dir(link);
        Err(std::io::Error::other(format!(
            "{} does not lead to {}",
            link.display(),
            target.display()
        )))
    }
}
