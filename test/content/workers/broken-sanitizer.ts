// A renderer worker whose sanitizer lets everything through: its self-test must fail, and it must
// then render nothing.
import { answerRenderJobs } from "../../../src/content/render-jobs";

answerRenderJobs({ sanitize: (html) => html, render: ({ markdown }) => `<p>${markdown}</p>` });
