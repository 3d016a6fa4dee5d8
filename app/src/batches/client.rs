//! The job endpoints (`api::jobs`) on the one typed client.

use crate::api::{Client, ClientError, encode};
use api::jobs::{
    CreateJob, Decide, JOB_LIVE_PATH, JOB_PATH, JOB_RETRY_RELEASED_PATH, JOBS_PATH, Job, JobList,
    RetryReleased, RowsPage,
};
use gloo_net::http::Request;

/// `/api/jobs/{id}` and what follows it.
pub fn job_path(id: &str, rest: &str) -> String {
    format!("{}{rest}", JOB_PATH.replace("{id}", &encode(id)))
}

pub fn live_path(id: &str) -> String {
    JOB_LIVE_PATH.replace("{id}", &encode(id))
}

/// The merchant's actions on a job (`POST /api/jobs/{id}/{action}`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobAct {
    Start,
    Approve,
    Retry,
    Release,
    Cancel,
}

impl JobAct {
    fn path(self) -> &'static str {
        match self {
            JobAct::Start => "/start",
            JobAct::Approve => "/approve",
            JobAct::Retry => "/retry",
            JobAct::Release => "/release",
            JobAct::Cancel => "/cancel",
        }
    }
}

impl Client {
    pub async fn create_job(self, request: &CreateJob) -> Result<Job, ClientError> {
        self.send_json(Request::post(JOBS_PATH), request).await
    }

    pub async fn jobs(self) -> Result<JobList, ClientError> {
        self.send(Request::get(JOBS_PATH)).await
    }

    pub async fn job(self, id: String) -> Result<Job, ClientError> {
        self.send(Request::get(&job_path(&id, ""))).await
    }

    pub async fn job_rows(
        self,
        id: String,
        offset: u32,
        limit: u32,
    ) -> Result<RowsPage, ClientError> {
        let url = job_path(&id, &format!("/rows?offset={offset}&limit={limit}"));
        self.send(Request::get(&url)).await
    }

    pub async fn job_act(self, id: String, act: JobAct) -> Result<Job, ClientError> {
        self.send(Request::post(&job_path(&id, act.path()))).await
    }

    pub async fn job_decide(self, id: String, decide: &Decide) -> Result<Job, ClientError> {
        self.send_json(Request::post(&job_path(&id, "/decide")), decide)
            .await
    }

    /// Buys released rows again: the merchant acknowledged they may be bought already.
    pub async fn job_retry_released(
        self,
        id: String,
        retry: &RetryReleased,
    ) -> Result<Job, ClientError> {
        let url = JOB_RETRY_RELEASED_PATH.replace("{id}", &encode(&id));
        self.send_json(Request::post(&url), retry).await
    }
}
