//! The robot's file system as box code names it: the folders a run gives box code under a
//! folder of its own (the run's root), and where Choregraphe's Play installs a project.
//!
//! Sources: the NAOqi 2.1 and 2.8 documentation (the robot applications page: packages are
//! installed in `/home/nao/.local/share/PackageManager/apps/`, Choregraphe's Play uploads
//! the project there as `.lastUploadedChoregrapheBehavior`), and NAOqi OS's layout, where
//! the user's home `/home/nao` is a link to `/var/persistent/home/nao` on NAO and to
//! `/data/home/nao` on Pepper 2.9.

/// A robot folder and the folder under a run's root that stands for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RobotFolder {
    /// The absolute path on the robot (`/home/nao`).
    pub robot: &'static str,
    /// The folder under the run's root, relative (`home/nao`).
    pub local: &'static str,
}

/// Every robot folder box code may name. The robot's several names of its home are one
/// folder, as they are one on the robot.
pub const FOLDERS: &[RobotFolder] = &[
    RobotFolder {
        robot: "/home/nao",
        local: "home/nao",
    },
    RobotFolder {
        robot: "/var/persistent/home/nao",
        local: "home/nao",
    },
    RobotFolder {
        robot: "/data/home/nao",
        local: "home/nao",
    },
    RobotFolder {
        robot: "/opt/aldebaran",
        local: "opt/aldebaran",
    },
];

/// Where PackageManager installs packages, under the run's root (a package is the folder
/// named after its uuid).
pub const APPS: &str = "home/nao/.local/share/PackageManager/apps";

/// The address Pepper's tablet reaches the robot at (their internal link): ALTabletService's
/// `robotIp()`, and the host of the pages it shows from packages.
pub const TABLET_ROBOT_IP: &str = "198.18.0.1";

/// The robot path of the file a page URL the tablet loads names, if the robot's web server
/// serves it from a package: `http://198.18.0.1/apps/<package>/<path>` is the package's
/// `html/<path>` (the 2.8 ALTabletService page's `playVideo` example: "Put the video in the
/// HTML folder of your behavior"); a query or fragment is not part of the file, and a path
/// that climbs out of the package (`..`) names none.
pub fn tablet_page(url: &str) -> Option<String> {
    let page = url.strip_prefix(&format!("http://{TABLET_ROBOT_IP}/apps/"))?;
    let (package, path) = page.split_once('/')?;
    let path = path.split(['?', '#']).next().unwrap_or(path);
    // `..` would leave the package (a web server keeps the request inside its root).
    let climbs = package == ".." || path.split('/').any(|part| part == "..");
    (!package.is_empty() && !path.is_empty() && !climbs)
        .then(|| format!("/{APPS}/{package}/html/{path}"))
}

/// The package name Choregraphe's Play gives the project it uploads and runs.
pub const PLAYED: &str = ".lastUploadedChoregrapheBehavior";

/// The folder under a run's root that robot path `path` names, if it is in a robot folder
/// (`/home/nao/x.wav` gives `home/nao/x.wav`); `None` for any other path.
pub fn local(path: &str) -> Option<String> {
    FOLDERS
        .iter()
        .filter(|f| {
            path == f.robot
                || path
                    .strip_prefix(f.robot)
                    .is_some_and(|r| r.starts_with('/'))
        })
        .max_by_key(|f| f.robot.len())
        .map(|f| format!("{}{}", f.local, &path[f.robot.len()..]))
}

/// The run's root of a package folder laid out as on a robot (`<root>/home/nao/.local/
/// share/PackageManager/apps/<package>` gives `<root>`); `None` for any other folder.
pub fn root_of(package: &std::path::Path) -> Option<&std::path::Path> {
    let apps = package.parent()?;
    let depth = APPS.split('/').count();
    apps.ends_with(APPS)
        .then(|| apps.ancestors().nth(depth))
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn robot_paths_map_under_the_root_and_others_do_not() {
        assert_eq!(local("/home/nao").as_deref(), Some("home/nao"));
        assert_eq!(
            local("/home/nao/.local/share/PackageManager/apps/.lastUploadedChoregrapheBehavior/x")
                .as_deref(),
            Some("home/nao/.local/share/PackageManager/apps/.lastUploadedChoregrapheBehavior/x")
        );
        assert_eq!(
            local("/data/home/nao/a.png").as_deref(),
            Some("home/nao/a.png")
        );
        assert_eq!(
            local("/var/persistent/home/nao/a").as_deref(),
            Some("home/nao/a")
        );
        assert_eq!(
            local("/opt/aldebaran/share").as_deref(),
            Some("opt/aldebaran/share")
        );
        assert_eq!(local("/home/naomi/x"), None);
        assert_eq!(local("/tmp/x"), None);
        assert_eq!(local("home/nao/x"), None);
        assert!(APPS.starts_with(FOLDERS[0].local));
    }

    #[test]
    fn a_package_folder_gives_its_root() {
        use std::path::Path;
        let package = Path::new("/tmp/choreo-x/home/nao/.local/share/PackageManager/apps/p");
        assert_eq!(root_of(package), Some(Path::new("/tmp/choreo-x")));
        assert_eq!(root_of(Path::new("/tmp/p")), None);
    }

    #[test]
    fn a_tablet_page_is_a_file_of_its_package_html_folder() {
        assert_eq!(
            tablet_page("http://198.18.0.1/apps/my_behavior/my_video.mp4").as_deref(),
            Some("/home/nao/.local/share/PackageManager/apps/my_behavior/html/my_video.mp4")
        );
        assert_eq!(
            tablet_page("http://198.18.0.1/apps/p/v/a.mp4?x=1").as_deref(),
            Some("/home/nao/.local/share/PackageManager/apps/p/html/v/a.mp4")
        );
        assert_eq!(tablet_page("http://clips.example/a.mp4"), None);
        assert_eq!(tablet_page("http://198.18.0.1/apps/p/"), None);
        // A path that climbs out of the package names no page of it: box code cannot have
        // choreo read a file outside the run's folders through a video's URL.
        assert_eq!(
            tablet_page("http://198.18.0.1/apps/p/../../../../../../etc/passwd"),
            None
        );
        assert_eq!(tablet_page("http://198.18.0.1/apps/../x/a.mp4"), None);
    }
}
