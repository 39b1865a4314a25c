import { execSync } from "child_process";
const commit = execSync("git rev-parse --short HEAD").toString().trim();
export default { define: { __COMMIT__: JSON.stringify(commit) } };
